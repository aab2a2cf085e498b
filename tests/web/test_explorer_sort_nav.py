"""The run page's items sorted by a column, and an item page's previous/next in that list."""

from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.engine.store.database import Store
from rulebench.engine.verdicts import VERDICTS, verdict_of

from tests.report.html_page import Page
from tests.web.explorer_page import ids_of, link
from tests.web.explorer_store import explorer

COUNT = 40
GROUPS = ("beta", "alpha", "gamma")


def varied_result(index: int) -> ItemResult:
    """Item `index`: ties in every column, some without a score or group, some errors."""
    metadata = {"repeat": 0} | ({} if index % 8 == 7 else {"group": GROUPS[index % 3]})
    asked = (Message(role="user", content=f"q {index}"),)
    cost = {
        "usage": Usage(prompt_tokens=(index * 5) % 6, completion_tokens=index % 3),
        "latency_s": ((index * 7) % 10) / 10,
    }
    # Stored in an order that is not the id order, so "finished" differs from "by id".
    item_id = f"item-{(index * 17) % COUNT:03d}"
    if index % 11 == 10:
        return ItemResult(item_id=item_id, messages=asked, error="503", metadata=metadata, **cost)
    score = None if index % 6 == 0 else (index % 5) / 4
    return ItemResult(
        item_id=item_id,
        messages=(*asked, Message(role="assistant", content=f"r {index}")),
        reply=f"r {index}",
        outcome=Outcome(score=score),
        metadata=metadata,
        **cost,
    )


@pytest.fixture(scope="module")
def varied_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A finished scenarios run of COUNT varied results (grouped by metadata "group")."""
    store = tmp_path_factory.mktemp("sorted") / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/varied", {"task": "scenarios"})
        writer = db.writer()
        for index in range(COUNT):
            writer.put_result(run.id, varied_result(index))
        writer.close()
        db.finish_run(run.id, "completed", {})
    return store, run.id


Value = Callable[[ItemResult], float | str | None]
VALUES: dict[str, Value] = {
    "verdict": lambda r: VERDICTS.index(verdict_of(r)),
    "score": lambda r: r.outcome.score if r.outcome else None,
    "tokens": lambda r: r.usage.prompt_tokens + r.usage.completion_tokens,
    "latency": lambda r: r.latency_s,
    "group": lambda r: None if r.metadata.get("group") is None else str(r.metadata["group"]),
}


def expected_ids(results: list[ItemResult], key: str, is_descending: bool) -> list[str]:
    """The order the page must show, worked out here: value, then id; no value last."""
    if key == "finished":
        ids = [result.item_id for result in results]
        return ids[::-1] if is_descending else ids
    value = VALUES[key]
    by_id = sorted(results, key=lambda r: r.item_id)
    valued = [r for r in by_id if value(r) is not None]
    ordered = sorted(valued, key=lambda r: value(r), reverse=is_descending)  # type: ignore[arg-type,return-value]  # None left out above
    return [r.item_id for r in ordered] + [r.item_id for r in by_id if value(r) is None]


def every_page(client: TestClient, url: str) -> list[str]:
    """The ids of every page of a list, following its next links from `url`."""
    ids: list[str] = []
    next_url: str | None = url
    while next_url:
        page = Page(client.get(next_url).text)
        ids += ids_of(page)
        next_url = link(page, "next")
    return ids


def stored(store: Path, run_id: str) -> list[ItemResult]:
    with Store(store, readonly=True) as db:
        return list(db.iter_results(run_id))


@pytest.mark.parametrize("key", ["finished", "verdict", "score", "tokens", "latency", "group"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_every_page_of_a_sorted_list_follows_the_sort(
    varied_store: tuple[Path, str], key: str, order: str
) -> None:
    store, run_id = varied_store
    with explorer(store) as client:
        shown = every_page(client, f"/runs/{run_id}?sort={key}&order={order}&size=7")
    assert shown == expected_ids(stored(store, run_id), key, order == "desc")
    assert len(set(shown)) == COUNT  # pages neither repeat nor skip a row


def test_a_sort_keeps_to_the_filter_and_a_header_link_flips_it(
    varied_store: tuple[Path, str],
) -> None:
    store, run_id = varied_store
    failed = [r for r in stored(store, run_id) if verdict_of(r) == "failed"]
    with explorer(store) as client:
        page = Page(client.get(f"/runs/{run_id}?verdict=failed&sort=latency").text)
        header = next(a for a in page.tags("a") if a.get("data-sort") == "latency")
        flipped = str(header["href"])
        ascending = every_page(client, flipped)
        sorted_th = [attrs["aria-sort"] for attrs in page.tags("th") if "aria-sort" in attrs]
    # The default for a number is largest first; its header asks for the other way.
    assert ids_of(page) == expected_ids(failed, "latency", is_descending=True)
    assert sorted_th == ["descending"]
    assert parse_qs(urlsplit(flipped).query) == {
        "verdict": ["failed"],
        "sort": ["latency"],
        "order": ["asc"],
    }
    assert ascending == expected_ids(failed, "latency", is_descending=False)


def test_paging_and_the_filter_form_carry_the_sort(varied_store: tuple[Path, str]) -> None:
    store, run_id = varied_store
    with explorer(store) as client:
        page = Page(client.get(f"/runs/{run_id}?sort=tokens&order=asc&size=5").text)
    query = parse_qs(urlsplit(str(link(page, "next"))).query)
    hidden = {
        str(attrs["name"]): attrs["value"]
        for attrs in page.tags("input")
        if attrs.get("type") == "hidden"
    }
    assert query == {"sort": ["tokens"], "order": ["asc"], "size": ["5"], "page": ["2"]}
    assert hidden["sort"] == "tokens" and hidden["order"] == "asc"


def item_nav(client: TestClient, url: str) -> tuple[str | None, str | None, str]:
    """An item page's previous and next links and its position text."""
    page = Page(client.get(url).text)
    where = " ".join(" ".join(page.text).split())
    return link(page, "prev"), link(page, "next"), where


@pytest.mark.parametrize(
    ("query", "key", "is_descending"),
    [
        ("verdict=failed&sort=latency&order=desc", "latency", True),
        ("sort=score", "score", True),
        ("group=alpha&sort=verdict&order=desc", "verdict", True),
        ("", "finished", False),
    ],
)
def test_next_links_walk_the_list_the_item_was_opened_from(
    varied_store: tuple[Path, str], query: str, key: str, is_descending: bool
) -> None:
    store, run_id = varied_store
    results = stored(store, run_id)
    kept = [
        r
        for r in results
        if ("failed" not in query or verdict_of(r) == "failed")
        and ("alpha" not in query or r.metadata.get("group") == "alpha")
    ]
    expected = expected_ids(kept, key, is_descending)
    with explorer(store) as client:
        listing = Page(client.get(f"/runs/{run_id}?{query}").text)
        first = next(str(a["href"]) for a in listing.tags("a") if "/items/" in str(a["href"]))
        walked, url, positions = [], first, []
        previous, following, where = item_nav(client, url)
        assert previous is None  # the first item: no previous
        while True:
            walked.append(urlsplit(url).path.rsplit("/", 1)[1])
            positions.append(where)
            if following is None:
                break
            assert parse_qs(urlsplit(following).query) == parse_qs(query)  # the list kept
            url = following
            back, following, where = item_nav(client, url)
            assert back is not None and urlsplit(back).path.endswith(walked[-1])
    total = len(expected)
    assert walked == expected
    assert [f"item {n} of {total}" in text for n, text in enumerate(positions, 1)] == [True] * total


def test_an_items_way_back_is_its_page_of_the_list(varied_store: tuple[Path, str]) -> None:
    store, run_id = varied_store
    twelfth = expected_ids(stored(store, run_id), "latency", is_descending=False)[11]
    with explorer(store) as client:
        page = Page(
            client.get(f"/runs/{run_id}/items/{twelfth}?sort=latency&order=asc&size=5").text
        )
        [back] = [
            str(a["href"]) for a in page.tags("a") if str(a["href"]).startswith(f"/runs/{run_id}?")
        ]
        listed = Page(client.get(back).text)
    assert parse_qs(urlsplit(back).query) == {
        "sort": ["latency"],
        "order": ["asc"],
        "size": ["5"],
        "page": ["3"],
    }
    assert twelfth in ids_of(listed)


def test_an_item_outside_the_list_it_names_has_no_neighbours(
    varied_store: tuple[Path, str],
) -> None:
    store, run_id = varied_store
    errored = next(r for r in stored(store, run_id) if r.error)
    with explorer(store) as client:
        previous, following, where = item_nav(
            client, f"/runs/{run_id}/items/{errored.item_id}?verdict=passed"
        )
        response = client.get(f"/runs/{run_id}/items/{errored.item_id}?sort=nope")
    assert previous is None and following is None
    assert "not in the list the link came from" in where
    assert response.status_code == 422


def test_the_pages_name_their_keys_and_load_the_script_that_reads_them(
    varied_store: tuple[Path, str],
) -> None:
    store, run_id = varied_store
    with explorer(store) as client:
        run_page = Page(client.get(f"/runs/{run_id}").text)
        item_page = Page(client.get(f"/runs/{run_id}/items/item-000").text)
        script = client.get("/static/item-keys.js")
    for page in (run_page, item_page):
        assert "/static/item-keys.js" in [attrs.get("src") for attrs in page.tags("script")]
        assert any("Keys:" in text for text in page.text)
        assert len([a for a in page.tags("input") if "data-key-search" in a]) == 1
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "ArrowRight" in script.text
