"""A run's charts from the few numbers they need agree with the report's, figure for figure.

A scenarios run's rates are summed in SQL; the reference is the report's own computation
(`record_rates`: `to_records` and `rates_by`), on a run with several scenarios, rules and
strategies, repeats that disagree, errors, results without a verdict, cut reasoning replies
and strategies spelled two ways. An inferential run's charts are drawn from its records
without the rest of the report: the same SVG.
"""

import math
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.store.database import Store
from rulebench.report.build import inferential_report
from rulebench.report.kinds import ExtractMode
from rulebench.scenarios.scoring import Rate
from rulebench.web.explorer import charts as web_charts
from rulebench.web.explorer.chart_rates import Rates, sql_rates
from rulebench.web.explorer.charts import record_rates

from tests.web.explorer_store import explorer

STRATEGY_SPELLINGS = ("Just Ask", "just ask", "Hypothetical", "default", "my own")
SUITES = ("redteam", "redteam", "basic", "benign")


def case_result(case: int, repeat: int) -> ItemResult:
    """Repeat `repeat` of case `case`: mixed verdicts, an error, a cut reasoning reply."""
    scenario = ("Encryption", "Hodor", "SimonSays")[case % 3]
    metadata: dict[str, JsonValue] = {
        "case_id": f"case-{case}",
        "scenario": scenario,
        "behavior": f"{scenario}/rule{case % 2}",
        "bucket": ("harmless", "helpful")[case % 2],
        "suite": SUITES[case % len(SUITES)],
        "repeat": repeat,
    }
    if case % 5 == 4:  # a run stored before categories were kept: only the lowercased one
        metadata["strategy"] = STRATEGY_SPELLINGS[case % 4].lower()
    else:
        metadata["category"] = STRATEGY_SPELLINGS[case % len(STRATEGY_SPELLINGS)]
    item_id = f"case-{case}-{repeat}"
    if (case + repeat) % 7 == 3:
        return ItemResult(item_id=item_id, error="server said 503", metadata=metadata)
    if (case * 3 + repeat) % 11 == 5:
        return ItemResult(
            item_id=item_id,
            reply="",
            reasoning="thinking, cut",
            is_reasoning_unfinished=True,
            outcome=Outcome(passed=None, reason="the thinking never finished: no answer"),
            metadata=metadata,
        )
    return ItemResult(
        item_id=item_id,
        reply="r",
        outcome=Outcome(passed=(case + 2 * repeat) % 3 != 0, reason="turn 1"),
        metadata=metadata,
    )


def write(store: Path, results: Iterator[ItemResult]) -> str:
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/synthetic", {"task": "scenarios"})
        writer = db.writer()
        for result in results:
            writer.put_result(run.id, result)
        writer.close()
        db.finish_run(run.id, "completed", {})
    return run.id


def mixed_run(store: Path) -> str:
    return write(store, (case_result(case, repeat) for case in range(60) for repeat in range(3)))


def assert_same(found: Rates, expected: Rates) -> None:
    assert list(found) == list(expected)
    for breakdown, rates in expected.items():
        assert list(found[breakdown]) == list(rates)  # the same groups, in the same order
        for label, rate in rates.items():
            got: Rate = found[breakdown][label]
            assert got.format() == rate.format()  # the page's text: value, interval and n
            assert got.n == rate.n
            for name in ("value", "low", "high"):
                assert math.isclose(getattr(got, name), getattr(rate, name), rel_tol=1e-12)


def test_sql_sums_give_the_reports_rates(tmp_path: Path) -> None:
    run_id = mixed_run(tmp_path / "s.sqlite")
    with Store(tmp_path / "s.sqlite", readonly=True) as db:
        found = sql_rates(db, run_id)
        expected = record_rates(db.iter_outcomes(run_id))
    assert found is not None
    assert_same(found, expected)
    assert len(expected["scenario"]) == 3 and len(expected["behavior"]) == 6
    # "Just Ask" and "just ask" are one strategy; "default" rounds and basic cases have none.
    assert "Just Ask" in expected["strategy"] and "just ask" not in expected["strategy"]
    assert any(0 < rate.value < 1 for rate in expected["scenario"].values())
    # Repeats count once: n is the cases judged, not the evaluations.
    assert sum(rate.n for rate in expected["scenario"].values()) <= 60


def test_a_case_under_two_spellings_is_counted_the_reports_way(tmp_path: Path) -> None:
    def spelled(repeat: int) -> ItemResult:
        result = case_result(0, repeat)
        category = ("Just Ask", "JUST ASK")[repeat % 2]
        metadata = {**result.metadata, "category": category, "suite": "redteam"}
        return result.model_copy(update={"metadata": metadata, "error": None})

    results = [spelled(repeat) for repeat in range(4)]
    passed = [
        ItemResult(
            item_id=r.item_id, reply="r", outcome=Outcome(passed=i % 2 == 0), metadata=r.metadata
        )
        for i, r in enumerate(results)
    ]
    run_id = write(tmp_path / "s.sqlite", iter(passed))
    with Store(tmp_path / "s.sqlite", readonly=True) as db:
        assert sql_rates(db, run_id) is None  # the SQL groups would count the case twice
    with explorer(tmp_path / "s.sqlite") as client:
        page = client.get(f"/runs/{run_id}/charts").text
    assert "50.0 [" in page and "(n=1)" in page  # one case, at the mean of its four verdicts


def test_an_unreadable_record_is_left_to_the_report_which_names_it(tmp_path: Path) -> None:
    bad = case_result(1, 0).model_copy(update={"metadata": {"scenario": "Hodor"}})
    run_id = write(tmp_path / "s.sqlite", iter([case_result(0, 0), bad]))
    with Store(tmp_path / "s.sqlite", readonly=True) as db:
        assert sql_rates(db, run_id) is None
    with explorer(tmp_path / "s.sqlite") as client:
        page = client.get(f"/runs/{run_id}/charts").text
    assert "The report cannot chart this run" in page and bad.item_id in page


def test_the_charts_page_reads_no_result_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = mixed_run(tmp_path / "s.sqlite")
    with Store(tmp_path / "s.sqlite", readonly=True) as db:
        expected = record_rates(db.iter_outcomes(run_id))

    def refused(self: Store, run_id: str) -> Iterator[ItemResult]:
        raise AssertionError("the charts page read every result")

    monkeypatch.setattr(Store, "iter_outcomes", refused)
    monkeypatch.setattr(Store, "iter_results", refused)
    with explorer(tmp_path / "s.sqlite") as client:
        page = client.get(f"/runs/{run_id}/charts")
    assert page.status_code == 200
    for rate in expected["strategy"].values():
        assert rate.format() in page.text


@pytest.mark.parametrize("extract", ["robust", "paper"])
def test_inferential_charts_are_the_whole_reports_charts(tmp_path: Path, extract: str) -> None:
    config: dict[str, JsonValue] = {
        "tasks": ["kinship"],
        "per_group": 2,
        "grid": {"quantities": ["none", "golden", "all"], "forms": ["nl", "fol"]},
    }
    store = tmp_path / "s.sqlite"
    run_id = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    mode = cast(ExtractMode, extract)
    with Store(store, readonly=True) as db:
        document = inferential_report(db, [run_id], extract=mode, render=True).document
        drawn = web_charts.inferential_charts(db, run_id, mode)
    assert document is not None
    expected = [
        web_charts.report_chart(chart) for section in document.sections for chart in section.charts
    ]
    assert len(expected) == 2
    assert drawn == expected  # the same titles and the same SVG, element for element
