"""`rulebench runs export RUN --format inspect`: a log that inspect lists, reads and agrees with.

The log is found and read by inspect_ai's own functions (`list_eval_logs`, what `inspect view`
lists, and `read_eval_log`); its numbers are compared with `runs show --json`.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError

runner = CliRunner()


def invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


@pytest.fixture
def scenarios_run(tmp_path: Path) -> tuple[str, str]:
    """(run id, store path) of a finished scenarios run (multi-turn, pass or fail)."""
    store = str(tmp_path / "s.sqlite")
    args = ["run", "scenarios", "-s", "basic", "--per-group", "1", "-m", "scripted/echo"]
    result = invoke(*args, "--json", "--store", store)
    return json.loads(result.stdout)["run"]["id"], store


def test_without_output_the_log_goes_where_inspect_view_looks(
    scenarios_run: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id, store = scenarios_run
    monkeypatch.chdir(tmp_path)
    result = invoke("runs", "export", run_id, "--format", "inspect", "--store", store)
    from inspect_ai.log import list_eval_logs, read_eval_log  # seconds to import: not at collection

    [listed] = list_eval_logs(str(tmp_path / "logs"))
    assert (listed.task, listed.task_id) == ("scenarios", run_id.replace("-", ""))
    path = Path(listed.name.removeprefix("file://"))
    assert path.suffix == ".eval"  # the format inspect reads a sample at a time
    assert f"wrote 19 results of run {run_id} to logs/{path.name} (inspect)" in result.stderr
    assert "note:" not in result.stderr
    log = read_eval_log(listed)
    shown = json.loads(invoke("runs", "show", run_id, "--json", "--store", store).stdout)
    overall = shown["summary"][-1]
    assert log.results is not None and log.samples is not None
    [verdict] = log.results.scores
    assert verdict.metrics["pass_rate"].value == pytest.approx(
        overall["pass_rate"]["successes"] / overall["pass_rate"]["n"]
    )
    assert verdict.metrics["ci95_low"].value == pytest.approx(overall["pass_rate"]["low"])
    assert verdict.metrics["ci95_high"].value == pytest.approx(overall["pass_rate"]["high"])
    assert log.results.metadata is not None
    assert log.results.metadata["summary"] == shown["summary"]
    assert (log.eval.model, log.eval.run_id, log.status) == ("scripted/echo", run_id, "success")
    assert log.eval.metadata is not None
    assert log.eval.metadata["rulebench"]["config"] == shown["config"]
    assert len(log.samples) == overall["items"] == 19


def test_an_output_name_inspect_does_not_list_gets_a_note(
    scenarios_run: tuple[str, str], tmp_path: Path
) -> None:
    from inspect_ai.log import read_eval_log

    run_id, store = scenarios_run
    path = tmp_path / "mine.json"
    result = invoke("runs", "export", run_id, "-f", "inspect", "-o", str(path), "--store", store)
    assert "note: `inspect view` lists only logs whose names start with a time" in result.stderr
    assert read_eval_log(str(path)).eval.run_id == run_id


@pytest.mark.parametrize(
    ("args", "name", "first_bytes"),
    [
        (["-o", "mine.eval"], "mine.eval", b"PK\x03\x04"),  # a .eval is inspect's, -f or not
        (["-f", "inspect", "-o", "mine.eval"], "mine.eval", b"PK\x03\x04"),
        (["-f", "inspect", "-o", "mine.json"], "mine.json", b'{"version": 2'),  # kept on request
    ],
)
def test_the_output_name_picks_the_inspect_format(
    scenarios_run: tuple[str, str], tmp_path: Path, args: list[str], name: str, first_bytes: bytes
) -> None:
    from inspect_ai.log import read_eval_log

    run_id, store = scenarios_run
    path = tmp_path / name
    arguments = [a if a != name else str(path) for a in args]
    result = invoke("runs", "export", run_id, *arguments, "--store", store)
    assert path.read_bytes().startswith(first_bytes)
    assert f"wrote 19 results of run {run_id}" in result.stderr and "(inspect)" in result.stderr
    assert read_eval_log(str(path), header_only=True).eval.run_id == run_id
    # inspect lists every .eval; a .json only when its name starts with a time.
    assert ("note:" in result.stderr) == (path.suffix == ".json")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-f", "inspect", "-o", "x.jsonl"],
            "--output x.jsonl: an inspect log is a .eval or .json file",
        ),
        (["-o", "x.json"], "for an inspect log add --format inspect"),
        ([], "--output is required for JSONL and CSV exports"),
    ],
)
def test_inspect_export_mistakes_are_config_errors(
    scenarios_run: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    run_id, store = scenarios_run
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["runs", "export", run_id, *args, "--store", store])
    # `main` prints a ConfigError as one red line (tests/cli/test_runs_export_format.py).
    assert isinstance(result.exception, ConfigError) and message in str(result.exception)
    assert not list(tmp_path.glob("x.*")) and not (tmp_path / "logs").exists()


def test_export_help_names_inspect_view() -> None:
    result = invoke("runs", "export", "--help")
    assert "inspect" in result.stdout and "`inspect view`" in " ".join(result.stdout.split())
