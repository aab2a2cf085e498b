"""`-m A -m B`: one task on several models as one resumable batch, compared at the end."""

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner, Result

from rulebench.checks.loadtest import LoadTestItems
from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.models.registry import DEFAULT_MODEL
from rulebench.testing.mock_server import MockServerConfig, serve_in_thread

runner = CliRunner()
ITEMS = 8
TWO_MODELS = ("-m", "scripted/echo", "-m", "scripted/fixed")


def loadtest_batch(tmp_path: Path, *args: str, models: tuple[str, ...] = TWO_MODELS) -> Result:
    store = str(tmp_path / "s.sqlite")
    output = str(tmp_path / "out")
    command = ["run", "loadtest", "-n", str(ITEMS), *models, "--store", store, "-o", output]
    return runner.invoke(app, [*command, *args])


def batch_payload(result: Result) -> dict[str, Any]:
    assert result.exit_code in (0, 1), result.output
    payload: dict[str, Any] = json.loads(result.stdout)
    return payload


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_two_models_run_as_one_batch_with_a_row_each(tmp_path: Path) -> None:
    result = loadtest_batch(tmp_path, "--json")
    assert result.exit_code == 0, result.output
    payload = batch_payload(result)
    rows = {row["model"]: row for row in payload["runs"]}
    assert set(rows) == {"scripted/echo", "scripted/fixed"}
    assert {row["how"] for row in rows.values()} == {"new"}
    # loadtest asks to repeat a token: echo does, the fixed "OK" never does.
    assert rows["scripted/echo"]["summary"]["accuracy"]["successes"] == ITEMS
    assert rows["scripted/fixed"]["summary"]["accuracy"]["successes"] == 0
    with Store(tmp_path / "s.sqlite") as store:
        runs = {run.id: run for run in store.list_runs()}
    assert set(runs) == {row["run_id"] for row in rows.values()}
    assert all(run.status == "completed" for run in runs.values())
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert all(run_id in summary for run_id in runs)
    assert json.loads((tmp_path / "out" / "batch.json").read_text())["batch"] == payload["batch"]


def test_the_same_batch_again_runs_nothing_twice(tmp_path: Path) -> None:
    first = batch_payload(loadtest_batch(tmp_path, "--json"))
    again = batch_payload(loadtest_batch(tmp_path, "--json"))
    assert again["batch"] == first["batch"]
    assert [row["how"] for row in again["runs"]] == ["reused", "reused"]
    assert [row["run_id"] for row in again["runs"]] == [row["run_id"] for row in first["runs"]]
    with Store(tmp_path / "s.sqlite") as store:
        assert len(store.list_runs()) == 2
        assert all(store.count_results(run.id)["ok"] == ITEMS for run in store.list_runs())


def test_the_batch_table_fits_80_columns_with_whole_run_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    long_model = "openai-api/vllm/meta-llama/Llama-3.1-8B-Instruct"  # never reached: port 9
    models = (*TWO_MODELS, "-m", long_model, "--base-url", "http://127.0.0.1:9/v1")
    result = runner.invoke(
        app,
        [
            "run",
            "smoke",
            *models,
            "--store",
            str(tmp_path / "s.sqlite"),
            "-o",
            str(tmp_path / "out"),
        ],
    )
    assert result.exit_code == 1, result.output
    assert "run 1 of 3: scripted/echo on smoke" in result.stderr
    assert "run 3 of 3: " + long_model + " on smoke" in result.stderr
    with Store(tmp_path / "s.sqlite") as store:
        run_ids = [run.id for run in store.list_runs()]
    assert len(run_ids) == 2
    for shown in ("scripted/echo", "scripted/fixed", "not started", *run_ids):
        assert shown in result.stdout, shown
    # Both rates with their intervals, whole; nothing cut, nothing wider than the terminal.
    assert "75.0 [30.1-95.4]" in result.stdout and "100.0 [34.2-100.0]" in result.stdout
    assert "…" not in result.stdout
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout


def test_one_model_prints_the_single_run_summary_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "s.sqlite")
    command = ["run", "loadtest", "-n", "3", "-m", "scripted/echo", "--store", store]
    result = runner.invoke(app, [*command, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["run"]["model"] == "scripted/echo" and "batch" not in payload
    assert "run 1 of" not in result.stderr
    assert not (tmp_path / "rulebench-experiment").exists()


def test_an_unknown_provider_fails_its_row_and_the_others_complete(tmp_path: Path) -> None:
    models = ("-m", "scripted/echo", "-m", "nosuch/model")
    result = loadtest_batch(tmp_path, "--json", models=models)
    assert result.exit_code == 1
    rows = {row["model"]: row for row in batch_payload(result)["runs"]}
    assert rows["scripted/echo"]["status"] == "completed"
    assert rows["nosuch/model"]["status"] == "not started"
    assert "unknown model provider 'nosuch'" in rows["nosuch/model"]["problem"]
    assert "1 of 2 runs did not complete" in result.stderr
    assert "nosuch/model on loadtest" in result.stderr


def test_a_dead_server_fails_its_run_and_the_same_command_finishes_later(tmp_path: Path) -> None:
    port = free_port()
    models = ("-m", "scripted/echo", "-m", "openai-api/mock/echo")
    url = ("--base-url", f"http://127.0.0.1:{port}/v1")
    down = loadtest_batch(tmp_path, *url, "--json", models=models)
    assert down.exit_code == 1
    rows = {row["model"]: row for row in batch_payload(down)["runs"]}
    assert rows["scripted/echo"]["status"] == "completed"
    assert rows["openai-api/mock/echo"]["status"] == "not started"
    assert "cannot reach" in rows["openai-api/mock/echo"]["problem"]
    assert "openai-api/mock/echo on loadtest: not started" in down.stderr
    assert "Run the same command again" in down.stderr

    with serve_in_thread(MockServerConfig(port=port)):
        up = loadtest_batch(tmp_path, *url, "--json", models=models)
    assert up.exit_code == 0, up.output
    rows = {row["model"]: row for row in batch_payload(up)["runs"]}
    assert rows["scripted/echo"]["how"] == "reused"
    assert rows["openai-api/mock/echo"]["how"] == "new"
    assert rows["openai-api/mock/echo"]["summary"]["accuracy"]["successes"] == ITEMS


def test_scenarios_on_two_models_get_the_comparison_report(tmp_path: Path) -> None:
    output = tmp_path / "compare"
    command = ["run", "scenarios", "--scenario", "Encryption", "--per-group", "2", *TWO_MODELS]
    result = runner.invoke(
        app, [*command, "--store", str(tmp_path / "s.sqlite"), "-o", str(output)]
    )
    assert result.exit_code == 0, result.output
    report = (output / "scenarios" / "report.md").read_text()
    assert "scripted/echo" in report and "scripted/fixed" in report
    numbers = json.loads((output / "scenarios" / "numbers.json").read_text())
    [pair] = numbers["comparisons"]
    assert {pair["first"], pair["second"]} == {"scripted/echo", "scripted/fixed"}
    assert pair["pairs"] == 2  # the same two cases, played by both models
    assert "pass %" in result.stdout


@pytest.mark.parametrize(("tolerance", "exit_code"), [("0", 1), ("0.2", 0)])
def test_fail_on_error_applies_to_each_run_of_a_batch(
    tmp_path: Path, tolerance: str, exit_code: int
) -> None:
    first = next(iter(LoadTestItems(ITEMS, 0)))
    rules = tmp_path / "rules.json"  # one of the eight items fails for scripted/rules: 12.5%
    rules.write_text(json.dumps([{"contains": first.target, "error": "boom", "transient": False}]))
    models = ("-m", "scripted/echo", "-m", "scripted/rules")
    args = ("-M", f"rules={rules}", "--fail-on-error", tolerance, "--json")
    result = loadtest_batch(tmp_path, *args, models=models)
    assert result.exit_code == exit_code, result.output
    statuses = [row["status"] for row in batch_payload(result)["runs"]]
    assert statuses == ["completed", "failed"]  # stored as failed either way


def test_repeated_base_url_is_one_comma_list(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    urls = ["--base-url", "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1"]
    urls += ["--base-url", " http://127.0.0.1:11/v1 "]
    result = runner.invoke(
        app, ["run", "smoke", "-m", "scripted/echo", *urls, "--store", str(store)]
    )
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        [run] = db.list_runs()
    assert run.config["base_url"] == (
        "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1,http://127.0.0.1:11/v1"
    )


def test_an_empty_base_url_is_refused(tmp_path: Path) -> None:
    args = ["run", "smoke", "-m", "scripted/echo", "--base-url", "http://a/v1", "--base-url", " "]
    result = runner.invoke(app, [*args, "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 1
    assert "--base-url: an empty value" in str(result.exception)
    assert not (tmp_path / "s.sqlite").exists()


def test_every_base_url_option_is_repeatable() -> None:
    found: list[str] = []

    # typer ships its own copy of click: read the commands by their attributes.
    def walk(command: Any, path: str) -> None:
        for param in command.params:
            if param.name == "base_url":
                assert getattr(param, "multiple", False), path
                found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(typer.main.get_command(app), "rulebench")
    expected = {"rulebench run", "rulebench run smoke", "rulebench play", "rulebench serve"}
    assert expected <= set(found)
    assert "rulebench train star" in found


@pytest.mark.slow
def test_the_embedded_model_and_a_scripted_one_in_one_batch(tmp_path: Path) -> None:
    models = ("-m", DEFAULT_MODEL, "-m", "scripted/echo")
    store = str(tmp_path / "s.sqlite")
    command = ["run", "smoke", *models, "--limit", "2", "--store", store, "-o", str(tmp_path)]
    result = runner.invoke(app, [*command, "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["model"]: row for row in batch_payload(result)["runs"]}
    assert set(rows) == {DEFAULT_MODEL, "scripted/echo"}
    assert all(row["status"] == "completed" for row in rows.values())
    assert all(row["summary"]["items"] == 2 for row in rows.values())
