"""`export_run(..., "inspect")`: logs that inspect_ai's own reader takes, for each kind of run.

Runs are real (scripted models, a real store); each log is written in both of inspect's
formats (`.eval`, the default, and `.json`), read back with `inspect_ai.log.read_eval_log`,
whole and header only, and compared with the store.
"""

import json
import math
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel, JsonValue

import rulebench
from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.catalog import TASKS
from rulebench.engine.export.inspect_log import (
    LogSuffix,
    inspect_log_name,
    is_listed_by_inspect,
    sample_scores,
)
from rulebench.engine.export.run_export import export_run
from rulebench.engine.store.database import Store
from rulebench.engine.summary import summarize

from tests.stored_json import json_at

if TYPE_CHECKING:  # inspect_ai takes seconds to import: each test that reads a log imports it
    from inspect_ai.log import EvalLog

FIXTURES = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"


@pytest.fixture(params=[".eval", ".json"])
def suffix(request: pytest.FixtureRequest) -> LogSuffix:
    """Each inspect log format in turn."""
    found: LogSuffix = request.param
    return found


def export(
    store: Path, run_id: str, folder: Path, suffix: LogSuffix
) -> tuple[Path, list[ItemResult]]:
    """Export a run as `runs export -f inspect` does; returns the log and the stored results."""
    with Store(store, readonly=True) as db:
        run = db.get_run(run_id)
        path = folder / inspect_log_name(run, suffix)
        entry = TASKS[run.task]
        count = export_run(db, run, path, "inspect", entry.group_by)
        results = list(db.iter_results(run.id))
    assert count == len(results) > 0
    return path, results


def read_checked(path: Path, results: list[ItemResult]) -> "EvalLog":
    """Read the log both ways inspect does; check it keeps every field written and sample."""
    from inspect_ai.log import read_eval_log

    assert_nothing_dropped(raw_log(path))
    log = read_eval_log(str(path))
    header = read_eval_log(str(path), header_only=True)
    # inspect fills in the dataset's sample ids from the samples when it reads them all.
    assert header.samples is None and header.results == log.results
    assert header.eval.model_dump(exclude={"dataset"}) == log.eval.model_dump(exclude={"dataset"})
    assert log.samples is not None
    if path.suffix == ".eval":  # inspect sorts a zip's samples by id: back to the store's order
        order = {r.item_id: i for i, r in enumerate(results)}
        log.samples = sorted(log.samples, key=lambda s: order.get(str(s.id), -1))
    assert [s.id for s in log.samples] == [r.item_id for r in results]
    for found, result in zip(log.samples, results, strict=True):
        usage = found.output.usage
        assert usage is not None
        assert (usage.input_tokens, usage.output_tokens) == (
            result.usage.prompt_tokens,
            result.usage.completion_tokens,
        )
        assert [m.text for m in found.messages] == [m.content for m in result.messages]
        assert found.output.completion == (result.reply or "")
    return log


def raw_log(path: Path) -> dict[str, Any]:
    """The log as written: one JSON document, or a `.eval`'s header with its samples added."""
    if path.suffix == ".json":
        found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return found
    with zipfile.ZipFile(path) as archive:
        header: dict[str, Any] = json.loads(archive.read("header.json"))
        names = [name for name in archive.namelist() if name.startswith("samples/")]
        samples = [json.loads(archive.read(name)) for name in names]
    return {**header, "samples": samples}


def assert_nothing_dropped(raw: dict[str, Any]) -> None:
    """Every key written is a field of inspect's model: none is silently ignored on reading."""
    from inspect_ai.event import ModelEvent, ScoreEvent
    from inspect_ai.log import EvalLog, EvalResults, EvalSample, EvalScore, EvalSpec, EvalStats
    from inspect_ai.model import ChatMessageAssistant, ModelOutput
    from inspect_ai.scorer import Score

    def check(data: dict[str, Any], model: type[BaseModel]) -> None:
        assert set(data) <= set(model.model_fields), (
            model.__name__,
            set(data) - set(model.model_fields),
        )

    check(raw, EvalLog)
    check(raw["eval"], EvalSpec)
    check(raw["stats"], EvalStats)
    check(raw["results"], EvalResults)
    for score in raw["results"]["scores"]:
        check(score, EvalScore)
    for found in raw["samples"]:
        check(found, EvalSample)
        check(found["output"], ModelOutput)
        for message in [*found["messages"], *(c["message"] for c in found["output"]["choices"])]:
            check(message, ChatMessageAssistant)
        for score in (found["scores"] or {}).values():
            check(score, Score)
        for event in found["events"]:
            check(event, ModelEvent if event["event"] == "model" else ScoreEvent)


def overall_metrics(log: "EvalLog", store: Path) -> tuple[dict[str, float], Any]:
    """The log's overall metrics by name, and `runs show`'s overall summary row."""
    assert log.results is not None
    with Store(store, readonly=True) as db:
        group_by = TASKS[log.eval.task].group_by
        rows = summarize(db.tally_results(log.eval.run_id, group_by), group_by is not None)
    metrics = {
        f"{score.name}.{key}": metric.value
        for score in log.results.scores
        for key, metric in score.metrics.items()
    }
    return metrics, rows[-1]


def test_an_inferential_run_keeps_answers_scores_gold_and_accuracy(
    tmp_path: Path, suffix: LogSuffix
) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 4}
    report = rulebench.run("inferential", "scripted/echo", config=config, store=store)
    path, results = export(store, report.run.id, tmp_path, suffix)
    log = read_checked(path, results)
    assert (log.status, log.eval.model, log.eval.task, log.eval.run_id) == (
        "success",
        "scripted/echo",
        "inferential",
        report.run.id,
    )
    assert log.eval.task_args == report.run.config["task_config"]
    max_tokens = json_at(report.run.config, "generate", "max_tokens")
    assert log.eval.model_generate_config.max_tokens == max_tokens
    assert log.samples is not None
    for found, result in zip(log.samples, results, strict=True):
        assert result.outcome is not None and found.scores is not None
        assert found.scores["score"].value == result.outcome.score
        assert found.scores["score"].answer == result.outcome.answer
        assert found.target == result.metadata["gold"] and found.target
        assert found.metadata["cell"] == result.metadata["cell"]
    metrics, overall = overall_metrics(log, store)
    assert overall.accuracy is not None and overall.pass_rate is None
    assert metrics["score.accuracy"] == pytest.approx(overall.accuracy.value)
    assert metrics["score.ci95_low"] == pytest.approx(overall.accuracy.low)
    assert metrics["score.ci95_high"] == pytest.approx(overall.accuracy.high)
    usage = log.stats.model_usage["scripted/echo"]
    assert (usage.input_tokens, usage.output_tokens) == (
        overall.prompt_tokens,
        overall.completion_tokens,
    )
    assert is_listed_by_inspect(path.name)


def test_a_scenarios_run_records_verdicts_as_c_or_i_with_the_pass_rate(
    tmp_path: Path, suffix: LogSuffix
) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}
    report = rulebench.run("scenarios", "scripted/echo", config=config, store=store)
    path, results = export(store, report.run.id, tmp_path, suffix)
    log = read_checked(path, results)
    assert log.samples is not None
    verdicts = []
    for found, result in zip(log.samples, results, strict=True):
        assert result.outcome is not None and found.scores is not None
        assert found.scores["verdict"].value == ("C" if result.outcome.passed else "I")
        assert found.scores["verdict"].explanation == result.outcome.reason
        assert len(found.messages) > 2 and isinstance(found.input, list)
        assert [m.role for m in found.input] == [m.role for m in found.messages[: len(found.input)]]
        verdicts.append(found.scores["verdict"].value)
    assert set(verdicts) == {"C", "I"}  # scripted/echo keeps some rules and breaks others
    metrics, overall = overall_metrics(log, store)
    assert overall.pass_rate is not None
    assert metrics["verdict.pass_rate"] == pytest.approx(overall.pass_rate.value)
    assert metrics["verdict.pass_rate"] == pytest.approx(verdicts.count("C") / len(verdicts))
    assert "score.accuracy" not in metrics
    assert log.results is not None
    groups = {m.name for m in log.results.scores[0].metrics.values() if m.group == "group"}
    assert groups == {"basic harmless", "basic helpful"}


def test_a_judge_run_has_the_true_verdict_as_target(tmp_path: Path, suffix: LogSuffix) -> None:
    store = tmp_path / "s.sqlite"
    scenarios: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}
    # Two models that keep and break different rules give exchanges of both verdicts.
    sources = [
        rulebench.run("scenarios", model, config=scenarios, store=store).run.id
        for model in ("scripted/echo", "scripted/fixed")
    ]
    config: dict[str, JsonValue] = {"runs": list(sources), "store": str(store), "per_group": 2}
    report = rulebench.run(
        "judge", "scripted/fixed", config=config, store=store, model_args={"reply": "fail"}
    )
    path, results = export(store, report.run.id, tmp_path, suffix)
    log = read_checked(path, results)
    assert log.samples is not None
    targets = set()
    for found, result in zip(log.samples, results, strict=True):
        assert result.outcome is not None and found.scores is not None
        assert found.target == result.outcome.details["truth"]
        assert found.scores["score"].value == (1.0 if found.target == "fail" else 0.0)
        targets.add(found.target)
    assert targets == {"pass", "fail"}


def test_error_items_are_samples_with_an_error_and_no_score(
    tmp_path: Path, suffix: LogSuffix
) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"contains": "apple", "error": "boom", "transient": False}]))
    store = tmp_path / "s.sqlite"
    report = rulebench.run("smoke", "scripted/rules", store=store, model_args={"rules": str(rules)})
    path, results = export(store, report.run.id, tmp_path, suffix)
    log = read_checked(path, results)
    assert log.samples is not None
    [(failed, error)] = [(s, s.error) for s in log.samples if s.error is not None]
    assert failed.scores is None and "boom" in error.message
    assert failed.output.choices == []
    # A failed run is an inspect "error" run, with the runner's reason.
    assert report.run.status == "failed" and log.status == "error"
    assert log.error is not None and log.error.message == report.run.notes["reason"]
    assert log.results is not None and log.results.completed_samples == len(results) - 1
    # The smoke task both scores questions and checks conversations: two scores.
    assert [s.name for s in log.results.scores] == ["score", "verdict"]


def test_excluded_items_keep_an_unscored_score_that_metrics_skip(
    tmp_path: Path, suffix: LogSuffix
) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {"tasks": ["salad"], "data_root": str(FIXTURES)}
    report = rulebench.run(
        "inferential", "scripted/fixed", config=config, store=store,
        model_args={"reply": "Sorry, I cannot help with that."},
    )  # fmt: skip
    path, results = export(store, report.run.id, tmp_path, suffix)
    log = read_checked(path, results)
    assert log.samples is not None
    values = [s.scores["score"].value for s in log.samples if s.scores]
    assert values and all(isinstance(v, float) and math.isnan(v) for v in values)
    assert log.results is not None and log.results.scores == []  # nothing counts: no rate


def test_an_outcome_without_score_or_verdict_is_unscored() -> None:
    from inspect_ai.scorer import Score

    [(name, score)] = sample_scores(Outcome(answer=None, reason="a refusal")).items()
    read = Score.model_validate(score)
    assert name == "score" and math.isnan(float(read.as_float())) and read.reason == "excluded"
    assert read.explanation == "a refusal"


def test_a_rerun_from_the_cache_carries_its_cached_tokens_apart(
    tmp_path: Path, suffix: LogSuffix
) -> None:
    store = tmp_path / "s.sqlite"
    rulebench.run("smoke", "scripted/echo", store=store)
    again = rulebench.run("smoke", "scripted/echo", store=store)
    path, results = export(store, again.run.id, tmp_path, suffix)
    log = read_checked(path, results)
    assert log.samples is not None
    for found, result in zip(log.samples, results, strict=True):
        kept = found.metadata["rulebench"]
        assert kept["cached_prompt_tokens"] == result.cached_usage.prompt_tokens > 0
        assert found.model_usage["scripted/echo"].input_tokens == 0


def test_a_replys_thinking_is_reasoning_content_before_its_answer(
    tmp_path: Path, suffix: LogSuffix
) -> None:
    from inspect_ai.model import ContentReasoning, ContentText

    store = tmp_path / "s.sqlite"
    args = {"reply": "Answer: (B)", "thinking": "maybe (A)"}
    report = rulebench.run("smoke", "scripted/fixed", store=store, model_args=args)
    path, results = export(store, report.run.id, tmp_path, suffix)
    log = read_checked(path, results)
    assert log.samples is not None
    for found, result in zip(log.samples, results, strict=True):
        assert result.reasoning == "maybe (A)"
        last = [m for m in found.messages if m.role == "assistant"][-1]
        for message in (found.output.choices[0].message, last):
            assert isinstance(message.content, list)
            thinking, answer = message.content
            assert isinstance(thinking, ContentReasoning) and isinstance(answer, ContentText)
            assert (thinking.reasoning, answer.text) == ("maybe (A)", "Answer: (B)")
        assert found.metadata["rulebench"]["reasoning_unfinished"] is False
