"""The example plugin package (examples/plugin) installed, found, listed, run and reported.

It is installed with this venv's pip into a folder of tmp_path (no network, no build
isolation) from a copy of its source, so the working tree gets no build files; every command
runs in a subprocess with that folder on PYTHONPATH, as an installed plugin would be seen.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.command import rulebench

EXAMPLE = Path(__file__).parents[2] / "examples" / "plugin"
PACKAGE = "rulebench-example-plugin"

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin installed into a fresh folder, as pip installs it."""
    work = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(EXAMPLE, work / "source")
    target = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
         "--no-index", "--quiet", "--target", str(target), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )  # fmt: skip
    return target


def env_with(site: Path, store: Path) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "RULEBENCH_STORE": str(store)}


def test_list_shows_the_plugins_with_their_package(site: Path, tmp_path: Path) -> None:
    result = rulebench("list", "plugins", "--json", env=env_with(site, tmp_path / "s.db"))
    assert result.returncode == 0, result.stderr
    plugins = {p["name"]: p for p in json.loads(result.stdout)["plugins"]}
    assert plugins["recycling"]["package"] == PACKAGE
    assert plugins["recycling"]["kind"] == "inferential task"
    assert plugins["Signature"]["package"] == PACKAGE
    assert not any("error" in p for p in plugins.values())
    shown = rulebench("list", "inferential", env=env_with(site, tmp_path / "s.db"))
    assert "recycling" in shown.stdout and PACKAGE in shown.stdout


def test_the_plugin_task_and_scenario_run_and_report(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = env_with(site, tmp_path / "s.db")
    task = rulebench("run", "inferential", "-t", "recycling", "-m", "scripted/echo", "--json",
                     env=env)  # fmt: skip
    assert task.returncode == 0, task.stderr
    task_run = json.loads(task.stdout)
    cases = site / "rulebench_example" / "cases" / "basic"
    scenario = rulebench("run", "scenarios", "--scenario", "Signature", "--suite", str(cases),
                         "-m", "scripted/echo", "--json", env=env)  # fmt: skip
    assert scenario.returncode == 0, scenario.stderr
    scenario_run = json.loads(scenario.stdout)
    assert overall(task_run)["items"] == 6
    # The third case's user turn ends with the sign-off, so echoing it passes; the others fail.
    assert overall(scenario_run)["items"] == 3
    assert overall(scenario_run)["pass_rate"]["successes"] == 1
    task_report = rulebench("report", task_run["run"]["id"], "-o", "out", env=env)
    assert task_report.returncode == 0, task_report.stderr
    assert "recycling" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    scenario_report = rulebench("report", scenario_run["run"]["id"], env=env)
    assert scenario_report.returncode == 0, scenario_report.stderr
    assert "helpful" in scenario_report.stdout


def overall(run: dict[str, Any]) -> dict[str, Any]:
    """The summary row over all items of a `run --json` result."""
    rows = [row for row in run["summary"] if row["group"] == "all"]
    assert len(rows) == 1, run["summary"]
    row: dict[str, Any] = rows[0]
    return row
