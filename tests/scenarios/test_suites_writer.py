"""Writing suites in upstream's per-behavior layout, and reading them back unchanged."""

import json
from pathlib import Path

from rulebench.core.cases import TestCase
from rulebench.scenarios.suites.generated import generate_suite
from rulebench.scenarios.suites.official import load_suite_dir, load_suite_file
from rulebench.scenarios.suites.official_writer import write_suite


def essentials(case: TestCase) -> dict[str, object]:
    return case.model_dump(exclude={"metadata"})


def test_round_trip_generated_suites(tmp_path: Path) -> None:
    cases = [*generate_suite("basic", 5), *generate_suite("redteam", 5)]
    written = write_suite(cases, tmp_path)
    assert len(written) == 2 * 19
    assert all(path.parent.name in {"basic", "redteam"} for path in written)
    back = load_suite_dir(tmp_path, None)
    assert sorted(map(essentials, back), key=str) == sorted(map(essentials, cases), key=str)
    redteam = load_suite_dir(tmp_path, "redteam")
    assert [c.id for c in redteam] == [
        c.id
        for c in sorted(cases[475:], key=lambda c: c.behavior)  # files load by name
    ]


def test_written_lines_use_the_official_fields(tmp_path: Path) -> None:
    cases = generate_suite("benign", 2, {"Commitment": 2, "Encryption": 1})
    write_suite(cases, tmp_path)
    lines = (tmp_path / "benign" / "Commitment.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 2
    assert set(records[0]) == {"id", "category", "params", "messages"}
    assert isinstance(records[0]["params"]["number"], int)  # numbers stay JSON integers
    assert records[0]["messages"][-1] == {"role": "user", "content": str(cases[1].params["number"])}


def test_rewriting_replaces_files(tmp_path: Path) -> None:
    cases = generate_suite("benign", 2, {"Encryption": 3})
    write_suite(cases, tmp_path)
    write_suite(cases[:1], tmp_path)
    assert len(load_suite_file(tmp_path / "benign" / "Encryption.jsonl")) == 1


def test_cases_without_a_suite_go_to_the_folder(tmp_path: Path) -> None:
    case = generate_suite("basic", 0, {"Encryption": 1})[0].model_copy(update={"suite": ""})
    (path,) = write_suite([case], tmp_path)
    assert path == tmp_path / "Encryption.jsonl"


def test_unusual_characters_survive(tmp_path: Path) -> None:
    case = generate_suite("redteam", 0, {"Encryption": 1})[0]
    text = "line\u2028separator, n\u00e4ive \U0001f600 and a\r\nwindows break"
    odd = case.model_copy(
        update={"messages": (case.messages[0].model_copy(update={"content": text}),)}
    )
    write_suite([odd], tmp_path)
    (back,) = load_suite_dir(tmp_path, "redteam")
    assert back.messages[0].content == text
