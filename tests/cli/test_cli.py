import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store

from tests.command import rulebench
from tests.stored_json import json_at

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

runner = CliRunner()


def test_help_loads_no_heavy_library() -> None:
    code = (
        "import sys; from rulebench.cli.app import main; sys.argv = ['rulebench', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = {'torch', 'transformers', 'llama_cpp', 'matplotlib', 'aiohttp'}\n"
        "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "LOADED []" in output
    assert "run" in output and "runs" in output


def test_run_smoke_prints_a_table_and_stores_the_run(tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    result = runner.invoke(app, ["run", "smoke", "-m", "scripted/echo", "--store", str(store_path)])
    assert result.exit_code == 0, result.output
    assert "conversation" in result.output and "question" in result.output
    with Store(store_path) as store:
        [run] = store.list_runs()
        assert run.status == "completed" and store.count_results(run.id) == {"ok": 6, "error": 0}
        assert json_at(run.config, "generate", "max_tokens") == 48


def test_run_json_output_is_machine_readable(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "run",
            "smoke",
            "-m",
            "scripted/fixed",
            "-M",
            "reply=yes",
            "--json",
            "--store",
            str(tmp_path / "s"),
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    overall = payload["summary"][-1]
    assert overall["group"] == "all" and overall["items"] == 6
    # "yes" is right for one of the four questions; neither conversation leaks.
    assert overall["accuracy"]["successes"] == 1 and overall["pass_rate"]["successes"] == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "smoke", "-m", "opneai/gpt-4o"], "unknown model provider 'opneai'"),
        (["run", "smoke", "-m", "openai"], "has no model name"),
        (["run", "smoke", "-m", "scripted/echo", "-M", "colour"], "is not key=value"),
        (["run", "smoke", "-m", "scripted/echo", "-M", "nope=1"], "-M nope"),
        (["run", "--resume", "missing-run"], "no run 'missing-run'"),
        (["run", "smoke", "-m", "llamacpp/does-not-exist.gguf"], "does-not-exist.gguf"),
    ],
)
def test_bad_input_is_one_red_line_and_exit_1(
    args: list[str], message: str, tmp_path: Path
) -> None:
    result = rulebench(*args, "--store", str(tmp_path / "s.sqlite"))
    assert result.returncode == 1, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: ") and message in lines[-1], result.stderr
    assert "Traceback" not in result.stderr


def test_resuming_in_a_store_that_does_not_exist_creates_no_store(tmp_path: Path) -> None:
    store = tmp_path / "results" / "s.sqlite"
    result = rulebench("run", "--resume", "missing-run", "--store", str(store))
    assert result.returncode == 1
    assert "no run 'missing-run' to resume" in result.stderr and str(store) in result.stderr
    assert not store.exists() and not store.parent.exists()


def test_unwritable_store_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    store = str(tmp_path / "f" / "s.sqlite")
    result = rulebench("run", "smoke", "-m", "scripted/echo", "--store", store)
    assert result.returncode == 1 and "error: cannot open the results store" in result.stderr
    listing = rulebench("runs", "list", "--store", store)
    assert listing.returncode == 1 and "error: no results store at" in listing.stderr


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    result = rulebench("--debug", "run", "smoke", "-m", "nope/x", "--store", str(tmp_path / "s"))
    assert result.returncode == 1 and "Traceback" in result.stderr


def test_runs_list_show_and_export(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    assert (
        runner.invoke(app, ["run", "smoke", "-m", "scripted/echo", "--store", store]).exit_code == 0
    )
    listed = runner.invoke(app, ["runs", "list", "--json", "--store", store])
    [run] = json.loads(listed.stdout)
    assert run["status"] == "completed" and run["counts"] == {"ok": 6, "error": 0}
    shown = runner.invoke(app, ["runs", "show", run["id"][:15], "--store", store])
    assert shown.exit_code == 0 and run["id"] in shown.output
    out = tmp_path / "r.csv"
    exported = runner.invoke(app, ["runs", "export", run["id"], "-o", str(out), "--store", store])
    assert exported.exit_code == 0
    with out.open(newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 6


def test_resume_via_cli_finishes_a_run(tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    result = runner.invoke(
        app, ["run", "smoke", "-m", "scripted/echo", "-n", "2", "--store", str(store_path)]
    )
    assert result.exit_code == 0
    with Store(store_path) as store:
        [run] = store.list_runs()
        # Pretend the run was killed after two items: drop its limit so resume has work to do.
        store._db.execute(
            "UPDATE runs SET status='running', config=json_remove(config, '$.limit') WHERE id=?",
            (run.id,),
        )
    resumed = runner.invoke(app, ["run", "--resume", run.id, "--store", str(store_path)])
    assert resumed.exit_code == 0, resumed.output
    with Store(store_path) as store:
        assert store.count_results(run.id) == {"ok": 6, "error": 0}
        assert store.get_run(run.id).status == "completed"


def test_cache_explain_via_cli(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    runner.invoke(app, ["run", "smoke", "-m", "scripted/echo", "--store", store])
    runner.invoke(app, ["run", "smoke", "-m", "scripted/echo", "--seed", "7", "--store", store])
    with Store(store) as db:
        latest = db.list_runs()[0].id
    result = runner.invoke(app, ["cache", "explain", latest, "--store", store])
    assert result.exit_code == 0 and "config.seed" in result.output
    stats = runner.invoke(app, ["cache", "stats", "--store", store])
    assert "scripted/echo" in stats.output


def test_models_lists_providers() -> None:
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0
    for provider in ("openai", "openai-api", "llamacpp", "hf", "scripted"):
        assert provider in result.output
