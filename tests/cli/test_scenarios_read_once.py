"""`run scenarios -s FILE` reads and parses the file once (issue 35: it was read 4 times).

The replay notes, the stored sizes and protocol, the reply limit and the runner's items each
need the cases; they share one parse (`scenarios.suites.read_once`), and an edited file is
read again.
"""

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.cases import TestCase
from rulebench.engine.store.database import Store
from rulebench.scenarios.suites import official
from rulebench.scenarios.suites.generated import generate_suite
from rulebench.scenarios.suites.official_writer import write_suite

from tests.stored_json import json_at

runner = CliRunner()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[Path]:
    """How many times each case file was read and parsed."""
    counted: Counter[Path] = Counter()
    read = official._read_file

    def counting(path: Path, suite: str, load: official._Load) -> list[TestCase]:
        counted[path.resolve()] += 1
        return read(path, suite, load)

    monkeypatch.setattr(official, "_read_file", counting)
    return counted


def _encryption_file(folder: Path, played: dict[str, object] | None = None) -> Path:
    """The basic suite's Encryption cases as a file, with a `played` record on each if given."""
    cases = [case for case in generate_suite("basic", 0) if case.scenario == "Encryption"]
    [path] = write_suite(cases, folder)
    if played is not None:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        path.write_text("".join(json.dumps({**row, "played": played}) + "\n" for row in rows))
    return path


def _run(store: Path, *args: str) -> str:
    result = runner.invoke(
        app, ["run", "scenarios", *args, "-m", "scripted/echo", "--store", str(store)]
    )
    assert result.exit_code in (0, 1), (result.output, result.exception)
    return result.output


def test_a_file_of_cases_is_read_once(tmp_path: Path, reads: Counter[Path]) -> None:
    path = _encryption_file(tmp_path / "cases")
    _run(tmp_path / "s.sqlite", "-s", str(path))
    assert reads == {path.resolve(): 1}


def test_saved_cases_with_a_record_are_read_once(tmp_path: Path, reads: Counter[Path]) -> None:
    path = _encryption_file(tmp_path / "cases", {"max_tokens": 300, "protocol": {"mode": "strict"}})
    output = _run(tmp_path / "s.sqlite", "-s", str(path), "--mode", "compat")
    assert "mode compat (recorded: strict)" in output  # the replay notes read the cases too
    assert reads == {path.resolve(): 1}
    with Store(tmp_path / "s.sqlite", readonly=True) as db:
        [run] = db.list_runs()
        assert json_at(run.config, "generate", "max_tokens") == 300  # the record's limit


def test_a_folder_is_read_once_and_an_edited_file_again(
    tmp_path: Path, reads: Counter[Path]
) -> None:
    path = _encryption_file(tmp_path / "cases")
    folder = str(path.parent)
    _run(tmp_path / "s.sqlite", "-s", folder)
    _run(tmp_path / "s.sqlite", "-s", folder, "--mode", "strict")
    assert reads == {path.resolve(): 1}  # one process, unchanged files: parsed once
    first = path.read_text().splitlines()[0]
    path.write_text(first + "\n")
    _run(tmp_path / "s.sqlite", "-s", folder)
    assert reads == {path.resolve(): 2}
