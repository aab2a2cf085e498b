"""The Python API, called exactly as the README and examples/python_api.py call it."""

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialConfig

from tests.stored_json import json_at, json_list

EXAMPLE = Path(__file__).parents[1] / "examples" / "python_api.py"
CONFIG = InferentialConfig(tasks=("kinship",), per_group=4, grid=Grid(quantities=("golden", "few")))


def test_run_then_results_as_rows_and_a_frame(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    report = rulebench.run("inferential", "scripted/echo", config=CONFIG, store=store)
    assert report.run.status == "completed" and report.completed_now == 8
    rows = rulebench.results(report.run.id, store=store)
    assert len(rows) == 8 and {row["item_id"] for row in rows} == {
        r.item_id for r in Store(store, readonly=True).iter_results(report.run.id)
    }
    assert isinstance(rows[0]["metadata"], dict) and rows[0]["metadata"]["task"] == "kinship"
    frame = rulebench.results_frame(report.run.id, store=store)
    assert list(frame["item_id"]) == [row["item_id"] for row in rows]
    assert json_at(report.run.config, "generate", "max_tokens") == 48  # the task's default


def test_a_dict_config_and_options_work_like_the_cli(tmp_path: Path) -> None:
    report = rulebench.run(
        "inferential",
        "scripted/echo",
        config={"tasks": ["stringgame"], "per_group": 3},
        store=tmp_path / "s.sqlite",
        max_tokens=20,
        limit=2,
    )
    assert report.completed_now == 2
    assert json_at(report.run.config, "generate", "max_tokens") == 20


async def test_it_runs_inside_a_running_event_loop(tmp_path: Path) -> None:
    # A notebook cell runs in Jupyter's event loop: the call must not need its own.
    report = rulebench.run("smoke", "scripted/echo", store=tmp_path / "s.sqlite")
    assert report.completed_now == 6


def test_resume_finishes_an_interrupted_run(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    report = rulebench.run("inferential", "scripted/echo", config=CONFIG, store=store)
    with Store(store) as db:  # as if the run had been stopped halfway
        db._db.execute("DELETE FROM results WHERE rowid % 2 = 0")
        db._db.execute("UPDATE runs SET status = 'interrupted'")
    resumed = rulebench.resume(report.run.id, store=store)
    assert resumed.completed_now == 4 and resumed.skipped == 4
    assert resumed.run.status == "completed"


def test_bad_input_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown task"):
        rulebench.run("nope", "scripted/echo", store=tmp_path / "s.sqlite")
    with pytest.raises(ConfigError, match="temperature"):
        rulebench.run("smoke", "scripted/echo", store=tmp_path / "s.sqlite", temperature=-1)


@pytest.mark.subprocess
def test_the_example_script_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(tmp_path / "s.sqlite")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "10 items, status completed" in done.stdout
    assert "10 of 10 replies from the cache" in done.stdout


def test_report_builds_what_the_cli_prints(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    report = rulebench.run("inferential", "scripted/echo", config=CONFIG, store=store)
    built = rulebench.build_report(report.run.id, store=store, folder=tmp_path / "report")
    assert built.path == tmp_path / "report" / "report.md" and built.path.exists()
    assert "## Capability dimensions" in built.markdown and built.warnings == []
    [entry] = json_list(built.numbers["runs"])
    assert json_at(entry, "id") == report.run.id and json_at(entry, "status") == "completed"
    numbers_only = rulebench.build_report([report.run.id], store=store)
    assert numbers_only.markdown == "" and numbers_only.numbers == built.numbers
    with pytest.raises(ConfigError, match="no report for"):
        rulebench.build_report(
            rulebench.run("smoke", "scripted/echo", store=store).run.id, store=store
        )


def test_the_cli_and_the_api_send_the_same_requests(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rulebench.cli.app import app

    store = tmp_path / "s.sqlite"
    cot: dict[str, JsonValue] = {"tasks": ["stringgame"], "per_group": 2, "grid": {"cot": [True]}}
    via_api = rulebench.run("inferential", "scripted/echo", config=cot, store=store)
    command = ["run", "inferential", "-t", "stringgame", "--per-group", "2", "--cot", "on"]
    result = CliRunner().invoke(app, [*command, "-m", "scripted/echo", "--store", str(store)])
    assert result.exit_code in (0, 1), result.output
    with Store(store, readonly=True) as db:
        via_cli = next(run for run in db.list_runs() if run.id != via_api.run.id)
    assert via_api.run.config["generate"] == via_cli.config["generate"]
    assert json_at(via_cli.config, "generate", "max_tokens") == 320  # chain of thought needs room


def test_generation_defaults_come_from_the_task() -> None:
    from rulebench.engine.catalog import default_max_tokens

    assert default_max_tokens("inferential", {}) == 48
    assert default_max_tokens("inferential", {"design": "paper"}) == 500
    assert default_max_tokens("scenarios", {}) == 128  # 5 per behavior: quick on a CPU
    assert default_max_tokens("scenarios", {"per_group": None}) == 512  # the official sizes
    assert default_max_tokens("smoke") == 48
