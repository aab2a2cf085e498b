"""The three main commands on the real embedded model (slow: CI runs them)."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store

pytestmark = pytest.mark.slow
runner = CliRunner()


def test_rulebench_run_with_no_model_runs_the_smoke_task_on_the_embedded_model(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.sqlite"
    result = runner.invoke(app, ["run", "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert "llamacpp/SmolLM2-135M-Instruct" in result.output and "question" in result.output
    with Store(store) as db:
        [run] = db.list_runs()
        assert db.count_results(run.id) == {"ok": 6, "error": 0}
        assert all(r.reply for r in db.iter_results(run.id))  # the model really answered


def test_inferential_loglik_scoring_on_the_embedded_model(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    args = [
        "run",
        "inferential",
        "-t",
        "kinship",
        "--per-group",
        "3",
        "-q",
        "golden",
        "--scoring",
        "loglik",
        "--store",
        store,
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        results = list(db.iter_results(db.list_runs()[0].id))
    assert len(results) == 3
    for r in results:
        assert r.outcome is not None and r.outcome.details["scoring"] == "loglik"
        scores = r.outcome.details["loglik"]
        assert isinstance(scores, dict) and len(scores) == 20 and r.outcome.answer in scores


def test_scenarios_on_the_embedded_model(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    args = [
        "run",
        "scenarios",
        "--per-group",
        "1",
        "--scenario",
        "Encryption",
        "--scenario",
        "Integrity",
        "--max-tokens",
        "24",
        "--json",
        "--store",
        store,
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["run"]["config"]["generate"]["max_tokens"] == 24
    assert payload["summary"][-1]["items"] == 2 and payload["summary"][-1]["errors"] == 0
