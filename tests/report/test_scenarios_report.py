"""The scenarios report: strategies only for red-team cases, Wilson intervals, McNemar n/a."""

import re

from rulebench.report.scenarios import render
from rulebench.scenarios.scoring import CaseRecord


def record(case_id: str, suite: str, strategy: str | None, passed: bool) -> CaseRecord:
    return CaseRecord(case_id, suite, "harmless", "Encryption", "Encryption", strategy, 0, passed)


RECORDS = [
    record("b1", "basic", None, True),
    record("b2", "basic", None, True),
    record("r1", "redteam", "Just Ask", True),
    record("r2", "redteam", "Indirection", False),
]


def section(text: str, heading: str) -> str:
    return text.split(f"## {heading}\n\n", 1)[1].split("\n\n## ", 1)[0]


def test_the_strategy_table_lists_only_red_team_strategies() -> None:
    text = render([("model-a", "system, no reminders", RECORDS)])
    strategies = section(text, "By strategy")
    assert "| model-a | Indirection |" in strategies and "| model-a | Just Ask |" in strategies
    assert len(strategies.strip().splitlines()) == 4  # header, rule, two strategies
    assert "None" not in strategies and "| - |" not in strategies


def test_no_red_team_case_no_strategy_table() -> None:
    text = render([("model-a", "p", RECORDS[:2])])
    assert section(text, "By strategy") == "_No case has a strategy._"


def test_rates_at_100_percent_have_an_interval() -> None:
    text = render([("model-a", "p", RECORDS)])
    # basic harmless: 2 of 2 pass; Wilson gives [34.2-100.0], never [100.0-100.0].
    assert "100.0 [34.2-100.0] (n=2)" in section(text, "Suites and buckets")
    assert not re.search(r"\[(\d+\.\d)-\1\]", text)
    assert "Wilson" in text


def test_mcnemar_without_shared_cases_is_n_a() -> None:
    other = [record("x1", "basic", None, False)]
    text = render([("model-a", "p", RECORDS), ("model-b", "p", other)])
    rows = section(text, "Paired comparison").splitlines()
    assert rows[-1] == "| model-a | model-b | 0 | 0 | 0 | n/a |"


def test_mcnemar_with_shared_cases_has_a_p_value() -> None:
    flipped = [r._replace(passed=not r.passed) for r in RECORDS]
    text = render([("model-a", "p", RECORDS), ("model-b", "p", flipped)])
    rows = section(text, "Paired comparison").splitlines()
    assert rows[-1] == "| model-a | model-b | 4 | 3 | 1 | 0.6250 |"
