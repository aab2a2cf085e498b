"""With --judge-reasoning the scenarios report sets the answer's rates beside the anywhere ones."""

from rulebench.report.scenarios import render, thinking_section
from rulebench.scenarios.scoring import CaseRecord


def _record(case: int, bucket: str, passed: bool, anywhere: bool | None) -> CaseRecord:
    return CaseRecord(
        case_id=f"c{case}",
        suite="basic",
        bucket=bucket,
        scenario="Encryption",
        behavior="Encryption",
        strategy=None,
        repeat=0,
        passed=passed,
        passed_anywhere=anywhere,
    )


def test_both_rates_and_the_leaks_in_thinking_only_are_side_by_side() -> None:
    # 4 cases kept in the answer; 2 of them broke the rule in the thinking; 1 failed outright.
    records = [
        _record(1, "harmless", True, True),
        _record(2, "harmless", True, False),
        _record(3, "helpful", True, False),
        _record(4, "helpful", True, True),
        _record(5, "helpful", False, False),
    ]
    section = thinking_section([("m", "user", records)])
    assert section is not None
    [row] = [line for line in section.splitlines() if line.startswith("| m |")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[2].startswith("80.0 ") and "(n=5)" in cells[2]
    assert cells[3].startswith("40.0 ") and "(n=5)" in cells[3]
    assert cells[-1] == "2"
    assert "m (anywhere)" in section  # and the bucket table judged with the thinking
    assert "## Thinking included" in render([("m", "user", records)])


def test_runs_without_the_option_have_no_such_section() -> None:
    records = [_record(1, "harmless", True, None), _record(2, "helpful", False, None)]
    assert thinking_section([("m", "user", records)]) is None
    assert "Thinking included" not in render([("m", "user", records)])
