"""`rulebench report RUN...` builds the report the runs' task gets; `-o` is always a folder.

Runs are real (scripted models, a real store) and go through the real commands; the
per-task commands (`report inferential|scenarios|judge`) are the reference.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store

from tests.command import assert_one_line_error, rulebench

runner = CliRunner()
FIXTURES = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"


def invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def refused(*args: str) -> str:
    """The ConfigError message a command ends with."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 1 and isinstance(result.exception, ConfigError), result.output
    return str(result.exception)


def newest_run(store: str) -> str:
    with Store(store, readonly=True) as db:
        return db.list_runs(1)[0].id


def scenarios_run(store: str, model: str = "scripted/echo") -> str:
    invoke("run", "scenarios", "-s", "basic", "-m", model, "--store", store)
    return newest_run(store)


def inferential_run(store: str) -> str:
    task = ["-t", "law", "--data-root", str(FIXTURES), "-q", "golden"]
    model = ["-m", "scripted/fixed", "-M", "reply=Answer: none"]
    invoke("run", "inferential", *task, *model, "--store", store)
    return newest_run(store)


def judge_run(store: str, sources: list[str] | None = None) -> str:
    """A judge run over `sources`, else over a passing and a failing scenarios run."""
    if sources is None:
        sources = [scenarios_run(store), scenarios_run(store, "scripted/fixed")]
    from_runs = [part for source in sources for part in ("--from-run", source)]
    model = ["-m", "scripted/fixed", "-M", "reply=fail"]
    invoke("run", "judge", *from_runs, "-n", "6", *model, "--store", store)
    return newest_run(store)


def first_sources(store: str, judge: str) -> list[str]:
    with Store(store, readonly=True) as db:
        config = db.get_run(judge).config.get("task_config")
    assert isinstance(config, dict) and isinstance(config["runs"], list)
    return [str(source) for source in config["runs"]]


def numbers(*args: str) -> Any:
    return json.loads(invoke("report", *args, "--json").stdout)


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "s.sqlite")


def test_the_report_follows_the_runs_task(store: str, tmp_path: Path) -> None:
    first, second = scenarios_run(store), scenarios_run(store, "scripted/fixed")
    inferential = inferential_run(store)
    judge = judge_run(store, [first, second])
    at = ["--store", store]
    both = numbers(first, second, *at)
    assert both["report"] == "scenarios" and len(both["comparisons"]) == 1
    assert both == numbers("scenarios", first, second, *at)
    # Options may come before the runs, as after them.
    assert numbers(*at, inferential) == numbers("inferential", inferential, *at)
    assert numbers(inferential, *at)["report"] == "inferential"
    assert numbers(judge, *at) == numbers("judge", judge, *at)
    assert numbers(judge, *at)["run"]["source_runs"] == [first, second]


def test_extract_applies_to_inferential_runs_only(store: str, monkeypatch: Any) -> None:
    monkeypatch.chdir(Path(store).parent)
    inferential, scenarios = inferential_run(store), scenarios_run(store)
    found = numbers(inferential, "--extract", "paper", "--store", store)
    assert found["extraction"] == "paper"
    message = refused("report", scenarios, "--extract", "paper", "--store", store)
    assert message == "--extract applies to inferential runs only; these are scenarios runs"


def test_runs_of_different_tasks_are_one_clear_error(store: str) -> None:
    inferential, scenarios = inferential_run(store), scenarios_run(store)
    message = refused("report", scenarios, inferential, "--store", store)
    assert f"scenarios: {scenarios}" in message and f"inferential: {inferential}" in message
    assert "a report covers runs of one task" in message
    invoke("run", "smoke", "-m", "scripted/echo", "--store", store)
    smoke = newest_run(store)
    assert "no report for 1 'smoke' run(s)" in refused("report", smoke, "--store", store)
    # A per-task command names the run that is not its kind.
    message = refused("report", "judge", scenarios, "--store", store)
    assert message == f"run {scenarios} is a 'scenarios' run, not a judge one"


def test_several_judge_runs_are_refused(store: str) -> None:
    first = judge_run(store)
    judges = [first, judge_run(store, first_sources(store, first))]
    message = refused("report", *judges, "--store", store)
    assert message == "a judge report covers one judge run; 2 were given"


@pytest.mark.subprocess
def test_the_mixed_runs_error_is_one_line(store: str) -> None:
    inferential, scenarios = inferential_run(store), scenarios_run(store)
    result = rulebench("report", inferential, scenarios, "--store", store)
    assert_one_line_error(result, "different tasks", inferential, scenarios)


@pytest.mark.parametrize("kind", ["scenarios", "judge", "default"])
def test_output_is_a_folder_for_every_report(kind: str, store: str, tmp_path: Path) -> None:
    run_id = scenarios_run(store)
    if kind == "judge":
        run_id = judge_run(store, [run_id, scenarios_run(store, "scripted/fixed")])
    command = [run_id] if kind == "default" else [kind, run_id]
    folder = tmp_path / "out" / "nested"
    result = invoke("report", *command, "-o", str(folder), "--store", store)
    written = (folder / "report.md").read_text(encoding="utf-8")
    assert f"report written to {folder / 'report.md'}" in result.stderr
    heading = "Judge run" if kind == "judge" else "Suites and buckets"
    assert heading in written and heading in result.stdout
    assert "warning" not in result.stderr


def test_an_md_output_still_names_the_file_with_one_warning(store: str, tmp_path: Path) -> None:
    run_id = scenarios_run(store)
    path = tmp_path / "old.md"
    result = invoke("report", "scenarios", run_id, "-o", str(path), "--store", store)
    assert "Suites and buckets" in path.read_text(encoding="utf-8")
    [warning] = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warning.startswith("warning: -o FILE.md is now -o FOLDER")
    assert f"report written to {path}" in result.stderr


def test_an_output_that_is_a_file_is_refused(store: str, tmp_path: Path) -> None:
    run_id = scenarios_run(store)
    taken = tmp_path / "taken"
    taken.write_text("keep me", encoding="utf-8")
    message = refused("report", run_id, "-o", str(taken), "--store", store)
    assert message == f"-o {taken}: a file is there; -o names the report's folder"
    assert taken.read_text(encoding="utf-8") == "keep me"


def test_report_help_shows_the_default_usage_and_the_per_task_commands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    shown = invoke("report", "--help").stdout
    assert "rulebench report [OPTIONS] {RUN}... | COMMAND [ARGS]..." in shown
    options, commands = shown.split("Commands")
    assert "--extract" in options and "--html" in options and "RUN" in options
    # A default read from the library shows as a value, not typer's "(robust)".
    assert "[default: robust]" in options and "(robust)" not in options
    assert all(name in commands for name in ("inferential", "scenarios", "judge"))
    # The default command's own help reads as it is typed: no hidden command name.
    own = invoke("report", "some-run", "--help").stdout
    assert "Usage: rulebench report [OPTIONS] {RUN}..." in own
    mistyped = runner.invoke(app, ["report", "--json"])
    assert mistyped.exit_code == 2 and "Missing argument 'RUN'" in mistyped.output
    assert "Try 'rulebench report --help'" in mistyped.output
