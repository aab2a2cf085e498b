"""Scenario pass rates with --repeats: each case's repeats are averaged first, n counts cases."""

import pytest

from rulebench.scenarios.scoring import CaseRecord, headline, rate


def case(case_id: str, passed: bool, repeat: int, bucket: tuple[str, str]) -> CaseRecord:
    suite, kind = bucket
    return CaseRecord(case_id, suite, kind, "Encryption", "b", None, repeat, passed)


OUTCOMES = (True, False, True, True, False)


def cases(repeats: int, bucket: tuple[str, str] = ("basic", "harmless")) -> list[CaseRecord]:
    return [
        case(f"c{i}", passed, repeat, bucket)
        for i, passed in enumerate(OUTCOMES)
        for repeat in range(repeats)
    ]


def test_identical_repeats_give_the_rate_of_one_evaluation() -> None:
    assert rate([cases(3)]) == rate([cases(1)])
    assert rate([cases(3)]).n == len(OUTCOMES)


def test_the_headline_bootstraps_cases_not_evaluations() -> None:
    buckets = [("basic", "harmless"), ("basic", "helpful"), ("redteam", "harmless")]
    buckets.append(("redteam", "helpful"))
    once = [r for b in buckets for r in cases(1, b)]
    thrice = [r for b in buckets for r in cases(3, b)]
    assert headline(thrice) == headline(once)


def test_a_case_that_passes_some_repeats_counts_as_its_share() -> None:
    records = [case("a", p, i, ("basic", "harmless")) for i, p in enumerate((True, False))]
    records.append(case("b", True, 0, ("basic", "harmless")))
    found = rate([records])
    assert found.n == 2 and found.value == pytest.approx(0.75)
