"""Replies whose thinking was cut short are counted per cell, in the table and the report;
thinking tokens are summed."""

import io
from collections.abc import Sequence

from rich.console import Console

from rulebench.core.items import Item, ItemResult, Outcome
from rulebench.core.messages import GenerateConfig, Usage
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.summary import GroupSummary, summarize
from rulebench.models.scripted import ScriptedModel, ScriptedRule
from rulebench.report.run_notes import run_warnings
from rulebench.report.tables import summary_table, usage_line

from tests.conftest import EchoTask
from tests.stored_json import json_at

SPEC = RunSpec(task="echo-test", model="scripted/rules", generate=GenerateConfig(max_tokens=9))


def _text(rows: Sequence[GroupSummary]) -> str:
    """The summary table as `runs show` prints it."""
    out = io.StringIO()
    Console(file=out, width=120).print(summary_table(rows, "Results", "parity"))
    return out.getvalue()


async def test_unfinished_thinking_is_counted_per_cell_and_reported(store: Store) -> None:
    # Item 1 (odd) thinks past the reply limit; the others answer.
    model = ScriptedModel("rules", rules=[ScriptedRule(contains="question 1", reply="<think>hm")])
    report = await Runner(store).run(EchoTask(4), model, SPEC)
    rows = summarize(store.tally_results(report.run.id, "parity"), grouped=True)
    assert {row.group: row.reasoning_unfinished for row in rows} == {"even": 0, "odd": 1, "all": 1}
    assert "cut short" in _text(rows)
    [line] = [w for w in run_warnings(store, report.run) if "thinking" in w]
    assert "1 replies" in line and report.run.id in line


async def test_a_run_without_thinking_has_no_column_and_no_line(store: Store) -> None:
    report = await Runner(store).run(EchoTask(4), ScriptedModel("echo"), SPEC)
    rows = summarize(store.tally_results(report.run.id, "parity"), grouped=True)
    assert all(row.reasoning_unfinished == 0 for row in rows)
    assert "cut" not in _text(rows)
    assert not [w for w in run_warnings(store, report.run) if "thinking" in w]


class _Repeated(EchoTask):
    """Each item twice, as `--repeats 2` runs it: the summary sums samples first."""

    def items(self) -> list[Item]:
        return [
            item.model_copy(
                update={
                    "id": f"{item.id}-{r}",
                    "repeat": r,
                    "metadata": {**item.metadata, "repeat": r},
                }
            )
            for item in super().items()
            for r in (0, 1)
        ]


async def test_repeats_count_every_unfinished_reply(store: Store) -> None:
    model = ScriptedModel("rules", rules=[ScriptedRule(contains="question 1", reply="<think>hm")])
    report = await Runner(store).run(_Repeated(4), model, SPEC)
    rows = summarize(store.tally_results(report.run.id, "parity"), grouped=True)
    assert {row.group: row.reasoning_unfinished for row in rows} == {"even": 0, "odd": 2, "all": 2}
    # The cut item's sample has no answer: counted, not scored.
    assert rows[-1].items == 8 and rows[-1].accuracy is not None and rows[-1].accuracy.n == 3


async def test_the_explorers_kept_sums_count_them_as_the_store_does(store: Store) -> None:
    from rulebench.web.explorer.run_tallies import run_sums

    model = ScriptedModel("rules", rules=[ScriptedRule(contains="question 1", reply="<think>hm")])
    report = await Runner(store).run(EchoTask(4), model, SPEC)
    kept = run_sums(store, report.run.id, "parity").tallies
    assert sorted(kept) == sorted(store.tally_results(report.run.id, "parity"))
    assert sum(tally.reasoning_unfinished for tally in kept) == 1


def test_thinking_tokens_are_summed_and_shown_with_the_output_tokens(store: Store) -> None:
    from rulebench.engine.export.inspect_log import RunLog, stats

    run = store.create_run("t", "m", {})
    writer = store.writer()
    for item_id in ("a", "b"):
        usage = Usage(prompt_tokens=3, completion_tokens=9, reasoning_tokens=7)
        result = ItemResult(item_id=item_id, reply="ok", outcome=Outcome(score=1.0), usage=usage)
        writer.put_result(run.id, result)
    writer.close()
    [total] = summarize(store.tally_results(run.id), grouped=False)
    assert (total.completion_tokens, total.reasoning_tokens) == (18, 14)
    assert "18 out (14 of them thinking)" in usage_line(total)
    logged = stats(RunLog(run, "completed", [total], None))
    assert json_at(logged, "model_usage", "m", "reasoning_tokens") == 14
