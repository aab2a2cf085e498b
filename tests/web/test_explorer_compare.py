"""Two runs side by side: the paired McNemar numbers are the reports', the items line up."""

from pathlib import Path

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.store.database import Store
from rulebench.report.build import scenarios_report
from rulebench.train.comparison import compare_rows, scored_items

from tests.report.html_page import Page
from tests.stored_json import json_list, json_object
from tests.web.explorer_store import SCENARIOS, explorer

PAIRED_HEADER = [
    "shared items",
    "only first passed",
    "only second passed",
    "unpaired",
    "McNemar p",
]
SIDE_HEADER = ["item", "first", "answer", "reply or error", "second", "answer", "reply or error"]


@pytest.mark.parametrize("repeats", [1, 2])
def test_the_paired_test_is_the_scenarios_reports(tmp_path: Path, repeats: int) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {**SCENARIOS, "repeats": repeats}
    first, second = (
        rulebench.run("scenarios", model, config=config, store=store).run.id
        for model in ("scripted/echo", "scripted/fixed")
    )
    with Store(store, readonly=True) as db:
        [comparison] = json_list(scenarios_report(db, [first, second]).numbers["comparisons"])
    expected = json_object(comparison)
    with explorer(store) as client:
        numbers = client.get(f"/api/compare?a={first}&b={second}").json()
        page = Page(client.get(f"/compare?a={first}&b={second}").text)
    # Repeats pair on their first repeat only, as the report does: 19 cases, not 38 items.
    assert numbers["pairs"] == expected["pairs"] == 19
    assert numbers["only_first_passed"] == expected["only_first_passed"]
    assert numbers["only_second_passed"] == expected["only_second_passed"]
    assert numbers["p_value"] == expected["p_value"]  # the same function on the same counts
    [_, shown] = page.table_with(PAIRED_HEADER)
    assert shown == [
        str(expected["pairs"]),
        str(expected["only_first_passed"]),
        str(expected["only_second_passed"]),
        "0",
        f"{expected['p_value']:.4g}",
    ]
    assert len(page.table_with(SIDE_HEADER)) - 1 == 19 * repeats


def test_inferential_runs_pair_as_the_before_after_comparison_does(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 12}
    first = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    second = rulebench.run(
        "inferential",
        "scripted/fixed",
        config=config,
        store=store,
        model_args={"reply": "Answer: brother"},
    ).run.id
    with Store(store, readonly=True) as db:
        base = scored_items(db.iter_results(first), None)
        tuned = scored_items(db.iter_results(second), None)
    [row] = compare_rows("kinship", base, tuned)
    with explorer(store) as client:
        numbers = client.get(f"/api/compare?a={first}&b={second}").json()
    assert numbers["pairs"] == row.pairs == 12
    assert (numbers["only_first_passed"], numbers["only_second_passed"]) == (
        row.only_base,
        row.only_tuned,
    )
    assert numbers["p_value"] == row.mcnemar_p


def test_side_by_side_items_filter_to_disagreements_and_page(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first, second = (
        rulebench.run("scenarios", model, config=SCENARIOS, store=store).run.id
        for model in ("scripted/echo", "scripted/fixed")
    )
    with explorer(store) as client:
        numbers = client.get(f"/api/compare?a={first}&b={second}").json()
        differ = Page(client.get(f"/compare?a={first}&b={second}&show=differ").text)
        only = {
            side: Page(client.get(f"/compare?a={first}&b={second}&show=only-{side}").text)
            for side in ("first", "second")
        }
        paged = Page(client.get(f"/compare?a={first[:-2]}&b={second}&size=5&page=2").text)
    discordant = numbers["only_first_passed"] + numbers["only_second_passed"]
    rows = differ.table_with(SIDE_HEADER)[1:]
    assert len(rows) == discordant > 0
    assert all(row[1] != row[4] for row in rows)
    for side, verdicts in (("first", ("passed", "failed")), ("second", ("failed", "passed"))):
        count = numbers[f"only_{side}_passed"]
        listed = only[side].table_with(SIDE_HEADER)[1:] if count else []
        assert len(listed) == count
        assert all((row[1], row[4]) == verdicts for row in listed)
        assert count or "No items to show." in only[side].text
    assert len(paged.table_with(SIDE_HEADER)) - 1 == 5
    [following] = [str(a["href"]) for a in paged.tags("a") if a.get("rel") == "next"]
    # A run given by prefix is linked by its whole id, so the URL keeps naming the same run.
    assert following == f"/compare?a={first}&b={second}&size=5&page=3"


def test_the_compare_page_without_runs_offers_a_choice(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ids = [
        rulebench.run("scenarios", model, config=SCENARIOS, store=store).run.id
        for model in ("scripted/echo", "scripted/fixed")
    ]
    with explorer(store) as client:
        page = Page(client.get("/compare").text)
    options = [str(attrs["value"]) for attrs in page.tags("option")]
    assert set(ids) <= set(options)
    assert [a for a in page.tags("select") if a.get("name") in ("a", "b")]


def test_the_compare_page_follows_a_run_that_gains_results(tmp_path: Path) -> None:
    """The page keeps a pair of runs' numbers, until either run's results change."""
    store = tmp_path / "s.sqlite"

    def put(db: Store, run_id: str, item_id: str, passed: bool) -> None:
        writer = db.writer()
        writer.put_result(run_id, ItemResult(item_id=item_id, outcome=Outcome(passed=passed)))
        writer.close()

    with Store(store) as db:
        first, second = (db.create_run("scenarios", "scripted/x", {}).id for _ in range(2))
        for item_id in ("a", "b", "c"):
            put(db, first, item_id, passed=True)
        put(db, second, "a", passed=True)
        put(db, second, "b", passed=False)
    url = f"/compare?a={first}&b={second}"
    with explorer(store) as client:
        [_, before] = Page(client.get(url).text).table_with(PAIRED_HEADER)
        with Store(store) as db:
            put(db, second, "c", passed=False)
        [_, after] = Page(client.get(url).text).table_with(PAIRED_HEADER)
    assert before[:4] == ["2", "1", "0", "1"]  # pairs, only first passed, only second, unpaired
    assert after[:4] == ["3", "2", "0", "0"]
