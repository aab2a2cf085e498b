"""The "Add a built-in scenario" guide works as written: its Vault runs, plays and is listed.

The page's Python block becomes the module its registry line names, registered for the test
only (the real `SCENARIOS` is left alone), so a change to the `Scenario` contract that the page
does not follow fails here.
"""

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.scenarios.registry import REGISTRY, scenario_class

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "guides" / "adding-a-scenario.md"
_GAMES = "rulebench.scenarios.games"
runner = CliRunner()


def _blocks(language: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def _registry_target() -> str:
    """The target of the page's `SCENARIOS` line, as the registry module spells it."""
    [line] = [b for b in _blocks("python") if b.lstrip().startswith('"Vault": f"')]
    found = re.fullmatch(r'\s*"Vault": f"\{_GAMES\}(\.\w+:SCENARIO)",\s*', line)
    assert found, line
    return _GAMES + found.group(1)


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The page's module, importable under the name its registry line gives, and registered."""
    [code] = [b for b in _blocks("python") if b.startswith('"""Vault')]
    target = _registry_target()
    module_name = target.split(":", 1)[0]
    source = tmp_path / "vault.py"
    source.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module_name, source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module_name, module)
    spec.loader.exec_module(module)
    REGISTRY.add("Vault", target, REGISTRY.entry("Hodor").package)  # as a built-in
    try:
        yield target
    finally:
        REGISTRY.discard("Vault")


def _case_file(folder: Path) -> Path:
    """The page's case file, under the name the per-behavior layout needs."""
    [lines] = [b for b in _blocks("text") if b.startswith('{"id": "vault-1"')]
    path = folder / "cases" / "Vault.jsonl"
    path.parent.mkdir()
    path.write_text(lines, encoding="utf-8")
    return path


def test_the_page_s_class_meets_the_registry_s_checks(vault: str) -> None:
    found = scenario_class("Vault")
    assert found.name == "Vault" and found.versions == ("v3",)
    [rule] = found.rules
    assert (rule.behavior, rule.bucket) == ("Vault", "harmless")
    instance = found.from_params({"code": "0042"})
    assert "0042" in instance.prompt() and "0042" not in instance.redacted_prompt()


def test_the_case_file_runs_and_echo_fails_the_case_that_repeats_the_code(
    vault: str, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    args = ["run", "scenarios", "-s", str(_case_file(tmp_path)), "-m", "scripted/echo"]
    result = runner.invoke(app, [*args, "--store", str(store)])
    assert result.exit_code == 0, (result.output, result.exception)
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        results = list(db.iter_results(run.id))
    verdicts = {r.metadata["case_id"]: r for r in results}
    assert len(verdicts) == 2
    by_passed = {r.outcome.passed: r for r in results if r.outcome is not None}
    assert set(by_passed) == {True, False}
    failed = by_passed[False]
    assert failed.outcome is not None and failed.outcome.reason is not None
    assert failed.outcome.reason.startswith("turn 1: Vault:")
    assert "4711" in failed.messages[-1].content


def test_play_shows_the_redacted_prompt_and_judges_each_reply(vault: str) -> None:
    args = ["play", "Vault", "-m", "scripted/echo", "--seed", "1"]
    result = runner.invoke(app, args, input="Hello\n/quit\n")
    assert result.exit_code == 0, (result.output, result.exception)
    assert "[REDACTED]" in result.output
    assert "verdict: pass" in result.output


def test_listing_shows_it_as_a_game(vault: str) -> None:
    result = runner.invoke(app, ["list", "scenarios", "--json"])
    assert result.exit_code == 0, result.output
    assert '"Vault"' in result.output and '"game"' in result.output
