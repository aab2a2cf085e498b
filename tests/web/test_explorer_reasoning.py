"""An item's page shows each reply's thinking collapsed above its answer; search finds it."""

from pathlib import Path

from tests.report.html_page import Page
from tests.web.explorer_store import explorer
from tests.web.thinking_store import CUT_THOUGHT, EARLY_THOUGHT, LAST_THOUGHT, thinking_run


def test_every_reply_shows_its_thinking_collapsed_above_its_answer(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = thinking_run(store)
    with explorer(store) as client:
        response = client.get(f"/runs/{run_id}/items/thought")
    assert response.status_code == 200
    html = response.text
    page = Page(html)
    blocks = page.tags("details")
    thinking = [attrs for attrs in blocks if "reasoning" in str(attrs.get("class"))]
    assert len(thinking) == 2  # the earlier reply's and the last one's
    assert all("open" not in attrs for attrs in thinking)  # collapsed
    text = "".join(page.text)
    shown = LAST_THOUGHT.split("\x1b")[0]  # up to the control character, shown as an escape
    assert EARLY_THOUGHT in text and shown in text  # as text, the page's escapes undone
    # Each thinking comes before its own answer: the earlier "blue", the reply "seven".
    early, last = html.index("weighing turquoise"), html.index("counting pebbles")
    assert early < html.index("<pre>blue</pre>") < last < html.index('id="reply"')
    assert "reasoning tokens (of completion)" in text and "40" in text


def test_hostile_thinking_is_text_not_markup(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = thinking_run(store)
    with explorer(store) as client:
        html = client.get(f"/runs/{run_id}/items/thought").text
    page = Page(html)
    assert not [attrs for attrs in page.tags("img") if attrs.get("src") == "x"]
    assert not page.tags("script") or all(attrs.get("src") for attrs in page.tags("script"))
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    assert not page.attribute_values("onerror") and not page.attribute_values("onmouseover")


def test_unfinished_thinking_is_labelled_cut_short(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = thinking_run(store)
    with explorer(store) as client:
        html = client.get(f"/runs/{run_id}/items/cut").text
    page = Page(html)
    [block] = [a for a in page.tags("details") if "reasoning" in str(a.get("class"))]
    assert "reasoning-unfinished" in str(block["class"]) and "open" not in block
    assert "cut short by the reply limit" in "".join(page.text)
    assert CUT_THOUGHT in "".join(page.text)


def test_search_finds_a_word_only_in_the_thinking(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = thinking_run(store)
    with explorer(store) as client:
        last = client.get("/search", params={"q": "pebbles"})
        early = client.get("/search", params={"q": "turquoise", "run": run_id})
        cut = client.get("/search", params={"q": "reasoning:marmalade"})
    header = ["run", "item", "verdict", "match"]
    for response, item_id, word in (
        (last, "thought", "pebbles"),
        (early, "thought", "turquoise"),
        (cut, "cut", "marmalade"),
    ):
        assert response.status_code == 200
        [row] = Page(response.text).table_with(header)[1:]
        assert row[:2] == [run_id, item_id]
        assert f"<mark>{word}</mark>" in response.text
