"""The newer explorer pages keep outside text as text: search hits, chart labels, config diffs
and run labels holding `<script>`, handlers and links (as `test_explorer_safety` checks the
older pages)."""

from pathlib import Path

from pydantic import JsonValue

from rulebench.engine.store.database import Store

from tests.web.explorer_store import HOSTILE, explorer, scenarios_run, synthetic_result
from tests.web.test_explorer_safety import SHOWN, assert_inert

SCRIPT = "<script>window.__pwned=1</script>"


def hostile_runs(store: Path) -> tuple[str, str]:
    """Two runs of one task whose configs differ in hostile text, with hostile metadata."""
    ids = []
    for index, value in enumerate((HOSTILE, f"{SCRIPT} second")):
        config: dict[str, JsonValue] = {"note": value, HOSTILE: index}
        with Store(store) as db:
            run = db.create_run("scenarios", f"scripted/{HOSTILE}", config)
            writer = db.writer()
            for number in range(4):
                result = synthetic_result(number).model_copy(
                    update={"metadata": {"scenario": HOSTILE, "behavior": HOSTILE, "repeat": 0}}
                )
                writer.put_result(run.id, result)
            writer.close()
            db.finish_run(run.id, "completed", {})
        ids.append(run.id)
    return ids[0], ids[1]


def test_search_hits_and_the_echoed_query_stay_text(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/fixed", reply=HOSTILE)
    with explorer(store) as client:
        found = client.get("/search", params={"q": "pwned"})
        within = client.get("/search", params={"q": "evil", "run": run_id})
        echoed = client.get("/search", params={"q": HOSTILE})  # not FTS5 syntax: a problem
        unmatched = client.get("/search", params={"q": '"onerror pwned nothing"'})
    assert found.status_code == within.status_code == 200
    hits = assert_inert(found.text)
    assert_inert(within.text)
    assert any(text.startswith("<script>window.__") for text in hits.text)
    assert any(text == "pwned" for text in hits.text)  # the matched word, marked as text
    for page in (echoed, unmatched):
        shown = assert_inert(page.text)
        assert page.status_code in (200, 400)
        assert any(SCRIPT in text or "onerror pwned" in text for text in shown.text)


def test_chart_labels_config_diffs_and_run_labels_stay_text(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first, second = hostile_runs(store)
    with explorer(store) as client:
        answers = {
            "runs": client.get("/"),
            "sorted": client.get("/", params={"sort": "label"}),
            "charts": client.get(f"/runs/{first}/charts"),
            "compare": client.get("/compare", params={"a": first, "b": second}),
        }
    pages = {}
    for name, answer in answers.items():
        assert answer.status_code == 200, name
        pages[name] = assert_inert(answer.text)
    labels = [text for text in pages["runs"].text if text.startswith(f"scripted/{SCRIPT}")]
    assert len(labels) == 2 and all("note=" in label for label in labels)
    assert any(
        SHOWN in text
        for text in pages["charts"].text + pages["charts"].attribute_values("data-label")
    )
    diff = pages["compare"].table_with(["setting", "", "first", "second"])
    values = [cell for row in diff[1:] for cell in row]
    assert f'"{SCRIPT} second"' in values
    assert any(SCRIPT in key for key in (row[0] for row in diff[1:]))
