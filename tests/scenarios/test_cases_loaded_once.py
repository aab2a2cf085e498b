"""A run of saved cases reads their file once: the notes, the spec and its reply limit share it.

The front end loads the cases (`prepare_scenarios`) and hands its config on holding them; the
engine's hooks (`with_run_settings`, `resolved_for`, `generation_defaults`) read nothing again.
A library caller naming the file gets one load too, in `make_spec`'s load step.
"""

import json
from pathlib import Path

import pytest

from rulebench.api import run_spec
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.run_options import ScenarioOptions, prepare_scenarios
from rulebench.scenarios.suites import read_once
from rulebench.scenarios.suites.generated import generate_suite
from rulebench.scenarios.suites.official_writer import write_suite


def _saved_file(folder: Path) -> Path:
    """Encryption's basic cases as a file of saved cases played at max_tokens 300."""
    cases = [case for case in generate_suite("basic", 0) if case.scenario == "Encryption"]
    [path] = write_suite(cases, folder)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    played = {"max_tokens": 300}
    path.write_text("".join(json.dumps({**row, "played": played}) + "\n" for row in rows))
    return path


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every time a file of cases is asked for, past the per-process parse memo's door."""
    asked: list[Path] = []
    original = read_once.suite_path_cases

    def counted(path: Path, version: str) -> object:
        asked.append(path)
        return original(path, version)  # type: ignore[arg-type]  # a Version, as given

    monkeypatch.setattr(read_once, "suite_path_cases", counted)
    return asked


def test_the_command_lines_path_loads_the_file_once(tmp_path: Path, loads: list[Path]) -> None:
    path = _saved_file(tmp_path)

    prepared = prepare_scenarios(ScenarioOptions(suites=(str(path),)))
    spec = make_spec("scenarios", "scripted/echo", prepared.config, RunSettings())

    assert loads == [path]
    assert spec.generate.max_tokens == 300  # the saved cases' record, read from what was held


def test_a_library_caller_naming_the_file_loads_it_once(tmp_path: Path, loads: list[Path]) -> None:
    path = _saved_file(tmp_path)

    spec = run_spec("scenarios", "scripted/echo", {"suites": [str(path)]}, {})

    assert loads == [path] and spec.generate.max_tokens == 300


def test_held_cases_are_dropped_by_a_copy_that_changes_what_they_follow(
    tmp_path: Path, loads: list[Path]
) -> None:
    path = _saved_file(tmp_path)
    held = ScenarioConfig(suites=(str(path),)).with_inputs_loaded()

    held.model_copy(update={"sizes": ("official",)}).run_cases()  # sizes: not a case field
    changed = held.model_copy(update={"scenarios": ("Encryption",)})
    changed.run_cases()

    assert loads == [path, path]  # the first load, then the copy that changed its scenarios
    assert held.model_dump() == ScenarioConfig(suites=(str(path),)).model_dump()  # not stored
