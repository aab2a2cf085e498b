"""The `.eval` inspect log: inspect opens it by its header and loads one sample at a time.

Read back with inspect_ai's own readers (`read_eval_log` header only, `read_eval_log_sample`,
`read_eval_log_sample_summaries`); the Transcript tab's events are checked against what the
viewer needs not to say they "were removed" (`events.length === 0 && messages.length > 0`).
"""

import json
import time
import zipfile
from pathlib import Path

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.catalog import TASKS
from rulebench.engine.export.inspect_eval import HEADER, START, SUMMARIES, sample_member
from rulebench.engine.export.inspect_log import inspect_log_name
from rulebench.engine.export.run_export import export_run
from rulebench.engine.store.database import Store


def export(store: Path, run_id: str, folder: Path) -> tuple[Path, list[ItemResult]]:
    """The run as `runs export -f inspect` writes it by default; the log and stored results."""
    with Store(store, readonly=True) as db:
        run = db.get_run(run_id)
        path = folder / inspect_log_name(run)
        entry = TASKS.get(run.task)
        export_run(db, run, path, "inspect", entry.group_by if entry else None)
        return path, list(db.iter_results(run.id))


def test_the_zip_has_inspects_layout_and_one_sample_loads_with_its_reasoning(
    tmp_path: Path,
) -> None:
    from inspect_ai.log import read_eval_log, read_eval_log_sample, read_eval_log_sample_summaries
    from inspect_ai.model import ContentReasoning, ContentText

    store = tmp_path / "s.sqlite"
    args = {"reply": "Answer: (B)", "thinking": "maybe (A)"}
    run_id = rulebench.run("smoke", "scripted/fixed", store=store, model_args=args).run.id
    path, results = export(store, run_id, tmp_path)
    assert path.suffix == ".eval"
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
    assert {START, HEADER, SUMMARIES} <= names
    assert {n for n in names if n.startswith("samples/")} == {
        sample_member(r.item_id) for r in results
    }
    header = read_eval_log(str(path), header_only=True)
    assert header.samples is None and header.eval.run_id == run_id
    assert header.results is not None and header.results.total_samples == len(results)
    summaries = read_eval_log_sample_summaries(str(path))
    assert sorted(str(s.id) for s in summaries) == sorted(r.item_id for r in results)
    chosen = results[len(results) // 2]
    found = read_eval_log_sample(str(path), chosen.item_id, 1)
    assert found.id == chosen.item_id and found.output.completion == chosen.reply
    content = found.output.choices[0].message.content
    assert isinstance(content, list)
    thinking, answer = content
    assert isinstance(thinking, ContentReasoning) and isinstance(answer, ContentText)
    assert (thinking.reasoning, answer.text) == ("maybe (A)", "Answer: (B)")


def test_every_reply_is_a_model_event_and_every_score_a_score_event(tmp_path: Path) -> None:
    from inspect_ai.event import ModelEvent, ScoreEvent
    from inspect_ai.log import read_eval_log

    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}
    run_id = rulebench.run("scenarios", "scripted/echo", config=config, store=store).run.id
    path, results = export(store, run_id, tmp_path)
    log = read_eval_log(str(path))
    assert log.samples is not None and len(log.samples) == len(results)
    by_id = {r.item_id: r for r in results}
    for found in log.samples:
        result = by_id[str(found.id)]
        calls = [e for e in found.events if isinstance(e, ModelEvent)]
        scores = [e for e in found.events if isinstance(e, ScoreEvent)]
        replies = [i for i, m in enumerate(result.messages) if m.role == "assistant"]
        assert len(calls) == len(replies) > 1  # a multi-turn case: one call per turn
        for call, at in zip(calls, replies, strict=True):
            assert [m.text for m in call.input] == [m.content for m in result.messages[:at]]
            assert call.output.completion == result.messages[at].content
        assert calls[-1].output.completion == result.reply
        assert [e.score.value for e in scores] == [found.scores["verdict"].value]  # type: ignore[index]


def test_a_failed_item_shows_its_failed_call_not_a_removed_transcript(tmp_path: Path) -> None:
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import read_eval_log

    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("smoke", "scripted/x", {"task": "smoke"})
        writer = db.writer()
        asked = (Message(role="user", content="q"),)
        writer.put_result(run.id, ItemResult(item_id="bad", messages=asked, error="HTTP 500"))
        writer.put_result(
            run.id,
            ItemResult(item_id="ok", messages=asked, reply="a", outcome=Outcome(score=1.0)),
        )
        writer.close()
    path, _ = export(store, run.id, tmp_path)
    log = read_eval_log(str(path))
    assert log.samples is not None
    samples = {str(s.id): s for s in log.samples}
    for found in samples.values():
        # What makes the viewer say the events were removed for size.
        assert not (len(found.events) == 0 and len(found.messages) > 0)
    [failed] = [e for e in samples["bad"].events if isinstance(e, ModelEvent)]
    assert failed.error == "HTTP 500" and failed.output.choices == []
    [answered] = [e for e in samples["ok"].events if isinstance(e, ModelEvent)]
    assert answered.output.completion == "a" and [m.text for m in answered.input] == ["q"]


SAMPLES_100K = 100_000


@pytest.mark.slow
def test_a_run_of_100000_results_opens_and_one_sample_loads(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log, read_eval_log_sample

    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("smoke", "scripted/x", {"task": "smoke"})
        writer = db.writer()
        for index in range(SAMPLES_100K):
            writer.put_result(run.id, synthetic_result(index))
        writer.close()
    started = time.perf_counter()
    path, _ = export(store, run.id, tmp_path)
    written_s = time.perf_counter() - started
    started = time.perf_counter()
    header = read_eval_log(str(path), header_only=True)
    header_s = time.perf_counter() - started
    started = time.perf_counter()
    found = read_eval_log_sample(str(path), "item-77777", 1)
    sample_s = time.perf_counter() - started
    print(
        f"\n{SAMPLES_100K} samples: .eval {path.stat().st_size / 1e6:.1f} MB written in "
        f"{written_s:.1f} s; header read in {header_s:.2f} s, one sample in {sample_s:.2f} s"
    )
    assert header.results is not None and header.results.total_samples == SAMPLES_100K
    assert found.output.completion == synthetic_result(77777).reply
    with zipfile.ZipFile(path) as archive:
        assert len(json.loads(archive.read(SUMMARIES))) == SAMPLES_100K


def synthetic_result(index: int) -> ItemResult:
    """A two-message item about as long as a smoke item."""
    question = f"Rule: answer with the word after 'is'. Question {index}: the colour is red?"
    return ItemResult(
        item_id=f"item-{index}",
        messages=(Message(role="user", content=question),),
        reply=f"red {index}",
        outcome=Outcome(score=float(index % 2), answer="red"),
        metadata={"kind": "question", "group": f"g{index % 7}"},
    )
