"""`prepare_star` and the `train star` notes: the library builds the plan the command runs."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.api import RunOptions, run_spec
from rulebench.cli.app import app
from rulebench.core.errors import DataError
from rulebench.engine.run_settings import RunSettings
from rulebench.train.star import RoundReport
from rulebench.train.star_manifest import StarRound
from rulebench.train.star_notes import round_line, settings_line, stopped_note, thinking_line
from rulebench.train.star_options import StarOptions, prepare_star
from rulebench.train.star_task import StarConfig

runner = CliRunner()


def test_the_command_says_the_settings_of_the_plan_prepare_star_builds(tmp_path: Path) -> None:
    output, store = tmp_path / "star", tmp_path / "s.sqlite"
    args = ["--teacher", "scripted/echo", "--data", str(tmp_path), "-o", str(output)]
    args += ["--attempts", "2", "-n", "4", "--seed", "5", "--max-tokens", "99", "-c", "3"]
    result = runner.invoke(app, ["train", "star", *args, "--store", str(store)])
    assert isinstance(result.exception, DataError), result.output  # no data folder there
    options = StarOptions(
        teacher="scripted/echo", data=tmp_path, output=output, attempts=2, limit=4, seed=5
    )
    plan = prepare_star(options, RunSettings(max_tokens=99, concurrency=3))
    assert (plan.attempts, plan.output, plan.teacher_reasoning) == (2, output, "drop")
    settings: RunOptions = {"max_tokens": 99, "concurrency": 3, "limit": 4, "sampling_seed": 5}
    api_spec = run_spec("irft-star", "scripted/echo", {"data": str(tmp_path)}, settings)
    assert plan.spec == api_spec
    line = settings_line(plan)
    assert line == (
        "irft-star on scripted/echo: up to 2 attempts, max_tokens=99 temperature=0.7 "
        "concurrency=3 teacher_reasoning=drop limit=4"
    )
    assert line in " ".join(result.stderr.split())


def test_a_relative_folder_is_made_absolute_when_loaded_not_when_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    plan = prepare_star(
        StarOptions(teacher="scripted/echo", data=Path("d"), output=Path("o")), RunSettings()
    )
    assert plan.spec.task_config["data"] == str(tmp_path.resolve() / "d")
    assert StarConfig.model_validate({"data": "d"}).data == "d"  # a config reads no files
    assert StarConfig.load_inputs({"data": "~/x"})["data"] == str(Path("~/x").expanduser())


def test_round_lines_say_how_each_attempt_was_had() -> None:
    summary = StarRound(attempt=2, run_id="r2", items=4, kept=1)
    assert round_line(RoundReport(round=summary, how="new", ran=4, cache_hits=1)) == (
        "  attempt 2: 1 of 4 right (run r2: asked now, 4 run now, 1 from the cache)"
    )
    assert round_line(RoundReport(round=summary, how="reused")) == (
        "  attempt 2: 1 of 4 right (run r2: finished run reused)"
    )


def test_the_thinking_and_stop_notes() -> None:
    assert thinking_line("keep", 0).startswith("none in the kept replies")
    assert thinking_line("keep", 3) == "kept: 3 targets open with it as the chain of thought"
    assert thinking_line("drop", 3).endswith("(--teacher-reasoning keep keeps it)")
    assert stopped_note("r1") == (
        "Finished replies are stored (run r1): the same command goes on where it stopped."
    )
    assert "(run" not in stopped_note(None)
