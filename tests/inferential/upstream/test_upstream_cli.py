"""`run inferential --grid paper --prompts upstream` end to end, and the report's header."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store

from tests.inferential.upstream.clone_fixture import make_clone
from tests.stored_json import json_at


def _run(runner: CliRunner, store: str, data: Path, *extra: str) -> str:
    args = ["run", "inferential", "--task", "clutrr", "--task", "clutrr-cf", "--task", "deer"]
    args += ["--data-root", str(data), "-m", "scripted/echo", "--store", store, *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        return db.list_runs()[0].id


def test_paper_grid_with_upstream_prompts_runs_and_reports_its_wording(tmp_path: Path) -> None:
    clone = make_clone(tmp_path)
    store = str(tmp_path / "runs.db")
    runner = CliRunner()
    upstream = _run(runner, store, clone / "dataset", "--grid", "paper", "--prompts", "upstream")
    with Store(store) as db:
        run = db.get_run(upstream)
        config = run.config["task_config"]
        assert isinstance(config, dict) and config["prompts"] == "upstream"
        results = list(db.iter_results(upstream))
    assert results and all(r.metadata["prompts"] == "upstream" for r in results)
    # echo replies with the prompt itself: the upstream layout went to the model unchanged
    assert any("<\\question>\n<answer>\n" in (r.reply or "") for r in results)
    out = tmp_path / "report"
    report = runner.invoke(
        app, ["report", "inferential", upstream, "-o", str(out), "--store", store]
    )
    assert report.exit_code == 0, report.output
    assert "prompts: upstream (clone at commit 1a2b3c4d)" in (out / "report.md").read_text()


def test_a_report_comparing_wordings_says_so(tmp_path: Path) -> None:
    clone = make_clone(tmp_path)
    store = str(tmp_path / "runs.db")
    runner = CliRunner()
    _run(runner, store, clone / "dataset", "-q", "golden", "--prompts", "upstream")
    _run(runner, store, clone / "dataset", "-q", "golden")
    with Store(store) as db:
        ids = [run.id for run in db.list_runs()]
    out = tmp_path / "report"
    report = runner.invoke(app, ["report", "inferential", *ids, "-o", str(out), "--store", store])
    assert report.exit_code == 0, report.output
    text = (out / "report.md").read_text()
    assert "prompts: rulebench" in text and "prompts: upstream (clone at commit 1a2b3c4d)" in text
    assert "different prompt text" in text


def test_upstream_prompts_without_a_clone_is_one_clear_error(tmp_path: Path) -> None:
    data = tmp_path / "dataset"
    data.mkdir()
    result = CliRunner().invoke(
        app,
        [
            "run",
            "inferential",
            "--task",
            "deer",
            "--data-root",
            str(data),
            "--prompts",
            "upstream",
            "-m",
            "scripted/echo",
            "--store",
            str(tmp_path / "r.db"),
        ],
    )
    assert result.exit_code == 1
    message = str(result.exception)
    assert "forangel2014/llm-rule-following" in message and "--upstream" in message


def test_a_clone_without_upstream_prompts_is_refused(tmp_path: Path) -> None:
    clone = make_clone(tmp_path)
    args = ["run", "inferential", "-t", "deer", "--data-root", str(clone / "dataset")]
    args += ["--upstream", str(clone), "-m", "scripted/echo", "--store", str(tmp_path / "r.db")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert "read only with --prompts upstream" in str(result.exception)


def test_every_run_of_a_batch_records_its_own_model_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a batch writes its comparison folder here
    clone = make_clone(tmp_path)
    store = str(tmp_path / "runs.db")
    args = ["run", "inferential", "-t", "deer", "-q", "golden", "--prompts", "upstream"]
    args += ["--data-root", str(clone / "dataset"), "--store", store]
    args += ["-m", "scripted/echo", "-m", "scripted/fixed"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        configs = {run.model: run.config["task_config"] for run in db.list_runs()}
    assert set(configs) == {"scripted/echo", "scripted/fixed"}
    for model, config in configs.items():
        assert isinstance(config, dict)
        assert config["upstream_model_name"] == model.split("/", 1)[1]
        revision = json_at(config, "upstream_source", "revision")
        assert isinstance(revision, str) and revision.startswith("commit ")


def test_log_likelihood_scoring_is_refused_with_upstream_prompts(tmp_path: Path) -> None:
    clone = make_clone(tmp_path)
    args = ["run", "inferential", "-t", "deer", "--data-root", str(clone / "dataset")]
    args += ["--prompts", "upstream", "--scoring", "loglik", "-m", "scripted/echo"]
    result = CliRunner().invoke(app, [*args, "--store", str(tmp_path / "r.db")])
    assert result.exit_code == 1
    assert "--scoring loglik scores candidates in rulebench's answer format" in str(
        result.exception
    )
