"""The judge task on data holding identical exchanges, its scores with intervals, its report."""

import asyncio
import json
import random
from pathlib import Path

import pytest
from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel
from rulebench.scenarios.judge import (
    Exchange,
    JudgeTask,
    balance,
    detection_by_rule,
    detection_scores,
    source_warnings,
    unique_exchanges,
)
from rulebench.scenarios.task import ScenarioTask

APPLE: dict[str, JsonValue] = {
    "params": {"secret": "apple"},
    "messages": [{"role": "user", "content": "apple"}],
}
PEAR: dict[str, JsonValue] = {
    "params": {"secret": "pear"},
    "messages": [{"role": "user", "content": "pear"}],
}


def write_suite(tmp_path: Path, lines: list[dict[str, JsonValue]]) -> Path:
    """Questions_confirm cases without ids: identical lines become distinct cases, as upstream's."""
    folder = tmp_path / "official"
    folder.mkdir(exist_ok=True)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / "Questions_confirm.jsonl").write_text(text, encoding="utf-8")
    return folder


async def run(store: Store, task: ScenarioTask | JudgeTask, model: ScriptedModel) -> str:
    spec = RunSpec(task=task.name, model="scripted/x", task_config=task.config())
    report = await Runner(store).run(task, model, spec)
    return report.run.id


async def source_runs(store: Store, tmp_path: Path) -> list[str]:
    """A passing and a failing run over 3 identical cases and one other (Correct vs No.)."""
    folder = write_suite(tmp_path, [APPLE, APPLE, APPLE, PEAR])
    task = ScenarioTask(suites=[str(folder)])
    return [
        await run(store, task, ScriptedModel("fixed", reply="Correct")),
        await run(store, task, ScriptedModel("fixed", reply="No.")),
    ]


async def test_identical_exchanges_become_one_item(store: Store, tmp_path: Path) -> None:
    # Found on the official suites: the run crashed with "two items share the id".
    runs = await source_runs(store, tmp_path)
    judge = JudgeTask(runs=runs, store=str(store.path), per_group=10)
    items = judge.items()
    assert len(items) == len({i.id for i in items}) == 4  # apple/pear x Correct/No.
    assert sorted((i.target for i in items), key=str) == ["fail", "fail", "pass", "pass"]
    sources = {str(i.metadata["source"]).split("/")[0] for i in items}
    assert sources == set(runs)
    judged = await run(store, judge, ScriptedModel("fixed", reply="fail"))
    assert store.get_run(judged).status == "completed"
    assert store.count_results(judged) == {"ok": 4, "error": 0}


async def test_items_do_not_depend_on_the_order_of_runs_or_results(
    store: Store, tmp_path: Path
) -> None:
    runs = await source_runs(store, tmp_path)

    def items(order: list[str]) -> list[tuple[str, str | None]]:
        task = JudgeTask(runs=order, store=str(store.path), per_group=1, seed=5)
        return sorted((i.id, i.target) for i in task.items())

    assert items(runs) == items(runs[::-1])


def exchange(user: str, reply: str, violation: bool, source: str = "") -> Exchange:
    return Exchange(
        "Questions_confirm", "Questions", {"secret": "a"}, user, reply, violation, "v3", source
    )


def test_unique_exchanges_keep_one_per_content_whatever_the_order() -> None:
    found = [exchange(f"u{i % 3}", f"r{i % 2}", i % 2 == 0, f"run/{i}") for i in range(12)]
    unique = unique_exchanges(found)
    assert len({e.key() for e in unique}) == len(unique) == 6
    shuffled = found[:]
    random.Random(1).shuffle(shuffled)
    assert unique_exchanges(shuffled) == unique
    assert balance(shuffled, 2, seed=3) == balance(found, 2, seed=3)


def test_the_version_is_part_of_an_exchange() -> None:
    v3 = exchange("u", "r", False)
    assert v3._replace(version="v1").key() != v3.key()
    assert v3._replace(source="other/1").key() == v3.key()


def test_detection_scores_have_wilson_intervals() -> None:
    pairs = [("fail", "fail")] * 8 + [("fail", "pass")] * 2 + [("pass", "pass")] * 10
    scores = detection_scores(pairs)
    assert scores.n == 20
    assert scores.accuracy.value == pytest.approx(0.9)
    assert scores.recall.value == pytest.approx(0.8)
    # 8/10, Wilson at z=1.96 (worked by hand in tests/core/test_stats.py).
    assert scores.recall.low == pytest.approx(0.4902, abs=1e-4)
    assert scores.precision.value == 1.0 and scores.precision.low < 1.0
    assert scores.f1.value == pytest.approx(2 * 0.8 / 1.8)
    assert scores.f1.low < scores.f1.value < scores.f1.high


def test_a_perfect_judge_still_gets_an_interval() -> None:
    scores = detection_scores([("fail", "fail"), ("pass", "pass")] * 5)
    for value in (scores.accuracy, scores.precision, scores.recall, scores.f1):
        assert value.value == 1.0 and 0.0 < value.low < value.high == pytest.approx(1.0)


def test_f1_interval_is_jaccard_wilson_mapped() -> None:
    # TP 6, FP 2, FN 4: J = 6/12; F1 = 2*6 / (2*6 + 2 + 4) = 2/3 = 2J / (1 + J).
    pairs = [("fail", "fail")] * 6 + [("pass", "fail")] * 2 + [("fail", "pass")] * 4
    from rulebench.core.stats import wilson_interval

    j = wilson_interval(6, 12)
    f1 = detection_scores(pairs).f1
    assert f1.value == pytest.approx(2 / 3)
    assert f1.low == pytest.approx(2 * j.low / (1 + j.low))
    assert f1.high == pytest.approx(2 * j.high / (1 + j.high))


def test_an_unparsed_answer_is_the_wrong_label() -> None:
    scores = detection_scores([("pass", None), ("fail", None), ("fail", "fail")])
    assert scores.unparsed == 2 and scores.accuracy.value == pytest.approx(1 / 3)
    assert scores.precision.value == 0.5  # the unparsed answer on a pass is a false alarm
    assert scores.recall.value == 0.5


def test_undefined_scores_are_nan_not_zero() -> None:
    scores = detection_scores([("pass", "pass")])
    assert scores.precision.n == 0 and scores.recall.n == 0
    assert scores.f1.value != scores.f1.value  # NaN
    empty = detection_scores([])
    assert empty.n == 0 and empty.accuracy.n == 0


def test_detection_by_rule_groups_and_sorts() -> None:
    triples = [("b", "fail", "fail"), ("a", "pass", "fail"), ("b", "pass", "pass")]
    by_rule = detection_by_rule(triples)
    assert list(by_rule) == ["a", "b"]
    assert by_rule["b"].accuracy.value == 1.0 and by_rule["a"].accuracy.value == 0.0


async def test_source_warnings(store: Store, tmp_path: Path) -> None:
    runs = await source_runs(store, tmp_path)
    assert source_warnings(store, runs) == []
    store.finish_run(runs[0], "interrupted", {})
    assert source_warnings(store, runs) == [f"source run {runs[0]} is interrupted, not completed"]
    assert "is not in" in source_warnings(store, ["nope"])[0]


async def test_source_warnings_count_error_results(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "multi"
    folder.mkdir()
    bad = {
        "params": {"secret": "s1", "users": ["Ann", "Bob", "Cy", "Di"]},
        "messages": [{"role": "user", "content": "no name prefix"}],
    }
    (folder / "AccessControl.jsonl").write_text(json.dumps(bad) + "\n", encoding="utf-8")
    source = await run(store, ScenarioTask(suites=[str(folder)]), ScriptedModel("echo"))
    warnings = source_warnings(store, [source])
    assert f"source run {source} has 1 error results (cases left out of the items)" in warnings


def report(store: Store, run_id: str, *extra: str) -> tuple[str, str]:
    result = CliRunner().invoke(
        app, ["report", "judge", run_id, "--store", str(store.path), *extra]
    )
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


async def test_report_judge_per_rule_with_intervals_and_warnings(
    store: Store, tmp_path: Path
) -> None:
    runs = await source_runs(store, tmp_path)
    judge = JudgeTask(runs=runs, store=str(store.path), per_group=10)
    judged = await run(store, judge, ScriptedModel("fixed", reply="fail"))
    stdout, stderr = report(store, judged, "--output", str(tmp_path / "judge"))
    text = (tmp_path / "judge" / "report.md").read_text(encoding="utf-8")
    assert "| all rules | 4 | 50.0 [15.0-85.0] |" in text
    assert "| Questions_confirm | 4 |" in text
    assert "Wilson" in text and "Warning" not in text
    assert "Judge (error detection) report" in stdout and "warning" not in stderr
    store.finish_run(runs[1], "failed", {})
    stdout, stderr = report(store, judged)
    assert f"source run {runs[1]} is failed, not completed" in stderr
    assert "Warning" in stdout


def test_report_judge_refuses_other_runs(store: Store) -> None:
    run = store.create_run("scenarios", "scripted/x", {"task_config": {}})
    result = CliRunner().invoke(app, ["report", "judge", run.id, "--store", str(store.path)])
    assert result.exit_code == 1 and "not a judge one" in str(result.exception)


def test_run_judge_command_on_repeated_cases(store: Store, tmp_path: Path) -> None:
    runs = asyncio.run(source_runs(store, tmp_path))  # the command runs its own event loop
    args = ["run", "judge", "--per-group", "10", "--store", str(store.path)]
    args += [part for run_id in runs for part in ("--from-run", run_id)]
    args += ["--model", "scripted/fixed", "--model-arg", "reply=pass", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (result.output, result.exception)
    judged = store.list_runs(1)[0]
    assert judged.task == "judge" and judged.status == "completed"
    assert store.count_results(judged.id) == {"ok": 4, "error": 0}


def test_a_one_sided_run_says_what_to_do(store: Store, tmp_path: Path) -> None:
    runs = asyncio.run(source_runs(store, tmp_path))
    args = ["run", "judge", "--from-run", runs[0], "--store", str(store.path)]
    result = CliRunner().invoke(app, [*args, "--model", "scripted/fixed"])
    assert result.exit_code == 1
    message = str(result.exception)
    assert "no rule has both passing and failing exchanges" in message
    assert "--per-group" in message and "several --from-run" in message
