"""`--prompts upstream` from the command line: run, report, preset warning, play, judge, errors."""

from pathlib import Path

from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.core.errors import RulebenchError
from rulebench.engine.store.database import Store

from tests.scenarios.upstream_fixture import (
    DATA_UNDER,
    HIDDEN,
    build_clone,
    head_commit,
    template,
)

runner = CliRunner()
ECHO = ["-m", "scripted/echo"]


def _run(tmp_path: Path, *options: str) -> Result:
    store = ["--store", str(tmp_path / "s.sqlite")]
    return runner.invoke(app, ["run", "scenarios", *ECHO, *store, *options])


def _run_ids(tmp_path: Path) -> list[str]:
    with Store(tmp_path / "s.sqlite", readonly=True) as db:
        return [run.id for run in reversed(db.list_runs())]  # oldest first


def _error(result: Result) -> str:
    """A refused command's message (in-process, the error reaches the runner, not stderr)."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, RulebenchError), result.exception
    return str(result.exception)


def _report(tmp_path: Path, *run_ids: str) -> str:
    out = ["-o", str(tmp_path / "r"), "--store", str(tmp_path / "s.sqlite")]
    result = runner.invoke(app, ["report", "scenarios", *run_ids, *out])
    assert result.exit_code == 0, result.output
    return (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_published_preset_with_upstream_prompts_found_from_the_data(tmp_path: Path) -> None:
    root = tmp_path / "lm-evaluation-harness"
    build_clone(root, "lm_eval")
    data = root / DATA_UNDER["lm_eval"]
    result = _run(tmp_path, "-s", str(data), "--preset", "published-v3", "--prompts", "upstream")
    assert result.exit_code == 0, (result.output, result.exception)
    assert "not comparable" not in result.stderr
    commit = head_commit(root)[:8]
    assert f"prompts: upstream (clone at commit {commit})" in result.stderr
    [run_id] = _run_ids(tmp_path)
    with Store(tmp_path / "s.sqlite", readonly=True) as db:
        [item] = list(db.iter_results(run_id))
    assert item.messages[0].content.startswith("You run the lockbox of a bakery.")
    text = _report(tmp_path, run_id)
    assert f"prompts: upstream (clone at commit {commit})" in text
    assert "different prompt text" not in text


def test_published_preset_with_our_wording_warns(tmp_path: Path) -> None:
    result = _run(
        tmp_path, "--per-group", "1", "--scenario", "Encryption", "--preset", "published-v3"
    )
    assert result.exit_code == 0, result.output
    assert "not comparable with the published v3 table" in result.stderr
    assert "prompts: rulebench" in result.stderr


def test_a_report_comparing_the_two_wordings_says_so(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    folder = build_clone(root)
    data = str(root / DATA_UNDER["llm_rules"])
    assert _run(tmp_path, "-s", data).exit_code == 0
    upstream = _run(tmp_path, "-s", data, "--prompts", "upstream", "--upstream", str(folder))
    assert upstream.exit_code == 0, upstream.output
    text = _report(tmp_path, *_run_ids(tmp_path))
    assert "different prompt text" in text
    assert "prompts: rulebench" in text and "prompts: upstream (clone at commit" in text
    alone = _report(tmp_path, _run_ids(tmp_path)[0])
    assert "prompts: rulebench" in alone and "different prompt text" not in alone


def test_upstream_prompts_without_a_clone_is_one_error(tmp_path: Path) -> None:
    message = _error(_run(tmp_path, "--per-group", "1", "--prompts", "upstream"))
    assert "normster/llm_rules" in message and "--upstream PATH" in message
    assert not (tmp_path / "s.sqlite").exists() or _run_ids(tmp_path) == []


def test_upstream_path_without_upstream_prompts_is_refused(tmp_path: Path) -> None:
    folder = build_clone(tmp_path / "clone")
    result = _run(tmp_path, "--per-group", "1", "--upstream", str(folder))
    assert "read only with --prompts upstream" in _error(result)


def test_a_broken_clone_names_the_file_and_the_missing_piece(tmp_path: Path) -> None:
    folder = build_clone(tmp_path / "clone", git=False)
    security = folder / "security.py"
    security.write_text(security.read_text().replace("class Integrity(", "class Honesty("))
    result = _run(tmp_path, "--prompts", "upstream", "--upstream", str(folder))
    assert "security.py: has no class Integrity" in _error(result)


def test_play_shows_the_clone_redacted_text(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    build_clone(root)
    args = ["play", "Encryption", *ECHO, "--seed", "3", "--prompts", "upstream"]
    result = runner.invoke(app, [*args, "--upstream", str(root)], input="/quit\n")
    assert result.exit_code == 0, (result.output, result.exception)
    redacted = template("Encryption").format(secret=HIDDEN)
    assert redacted.splitlines()[0] in result.output
    assert "prompts: upstream (clone at commit" in result.output


def test_play_refuses_a_v1_only_scenario_with_upstream_prompts(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    build_clone(root)
    args = ["play", "Hodor", *ECHO, "--prompts", "upstream", "--upstream", str(root)]
    result = runner.invoke(app, args, input="/quit\n")
    assert "v1-only scenario Hodor" in _error(result)
