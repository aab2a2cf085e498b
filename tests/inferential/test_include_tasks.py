"""`--include FOLDER`: task modules from a folder, without packaging."""

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.inferential import registry

from tests.command import rulebench

TASK_MODULE = """
from rulebench.inferential.tasks.clutrr import CLUTRR
from rulebench.inferential.tasks.kinship.definition import KINSHIP
from dataclasses import replace

MY_KIN = replace(KINSHIP, name="my-kin", summary="Kinship again, from an included folder")
"""


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "mine.py").write_text(TASK_MODULE)
    (tmp_path / "broken.py").write_text("import no_such_module_y\n")
    yield tmp_path
    registry.TASKS.discard("my-kin")


def test_included_tasks_register_and_a_broken_module_is_named(folder: Path) -> None:
    problems = registry.include_tasks(folder)
    assert len(problems) == 1 and "broken.py" in problems[0] and "no_such_module_y" in problems[0]
    assert "my-kin" in registry.task_names()
    assert registry.task_definition("my-kin").summary.startswith("Kinship again")
    assert registry.TASKS.entry("my-kin").package == f"--include {folder}"
    # The built-ins the module imported are not registered again.
    assert registry.TASKS.entry("clutrr").package == "rulebench"


def test_a_module_calling_sys_exit_is_one_problem_and_the_rest_register(folder: Path) -> None:
    (folder / "exits.py").write_text("import sys\nsys.exit(3)\n")
    problems = registry.include_tasks(folder)
    assert len(problems) == 2, problems
    assert any("broken.py" in line and "no_such_module_y" in line for line in problems)
    assert any("exits.py" in line and "sys.exit(3)" in line for line in problems)
    assert "my-kin" in registry.task_names()


def test_an_empty_or_missing_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no task modules"):
        registry.include_tasks(tmp_path)
    with pytest.raises(ConfigError, match="not a folder"):
        registry.include_tasks(tmp_path / "nope")


@pytest.mark.subprocess
def test_the_cli_option_and_env_var_include_a_folder(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    listed = rulebench("--include", str(folder), "list", "inferential")
    assert listed.returncode == 0, listed.stderr
    assert "my-kin" in listed.stdout and "broken.py" in listed.stderr
    env = {**os.environ, "RULEBENCH_INCLUDE": str(folder), "RULEBENCH_STORE": str(tmp_path / "s")}
    ran = rulebench(
        "run", "inferential", "-t", "my-kin", "-n", "3", "-m", "scripted/echo", "--json", env=env
    )
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)
    assert found["run"]["config"]["task_config"]["tasks"] == ["my-kin"]
    assert [row["items"] for row in found["summary"] if row["group"] == "all"] == [3]


@pytest.mark.subprocess
def test_a_module_calling_sys_exit_warns_and_the_command_goes_on(folder: Path) -> None:
    (folder / "exits.py").write_text("import sys\nsys.exit(3)\n")
    listed = rulebench("--include", str(folder), "list", "inferential")
    assert listed.returncode == 0, listed.stderr
    assert "my-kin" in listed.stdout
    warnings = [line for line in listed.stderr.splitlines() if "--include" in line]
    assert any("exits.py" in line and "sys.exit(3)" in line for line in warnings), listed.stderr
    assert any("broken.py" in line for line in warnings), listed.stderr
