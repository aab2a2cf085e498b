"""The store keeps a reply's reasoning in its own field, and older stores migrate to it."""

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Completion, Message, Usage
from rulebench.engine.export.run_export import export_results
from rulebench.engine.run_delta import START
from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import REASONING_STEP
from rulebench.engine.task import keepable

from tests.engine.old_stores import store_before

THINKING = "The key is 1234; maybe (A)."


def _result(item_id: str, reasoning: str | None = THINKING, unfinished: bool = False) -> ItemResult:
    reply = "" if unfinished else "Answer: (B)"
    return ItemResult(
        item_id=item_id,
        messages=(
            Message(role="user", content="Which?"),
            Message(role="assistant", content=reply, reasoning=reasoning),
        ),
        reply=reply,
        reasoning=reasoning,
        is_reasoning_unfinished=unfinished,
        outcome=Outcome(answer=None if unfinished else "B", score=1.0),
        usage=Usage(prompt_tokens=3, completion_tokens=9, reasoning_tokens=7),
        cached_usage=Usage(completion_tokens=4, reasoning_tokens=2),
    )


def stored_run(store: Store, *results: ItemResult) -> str:
    """A run of these results, written by the store's writer; its id."""
    run = store.create_run("t", "m", {})
    writer = store.writer()
    for result in results:
        writer.put_result(run.id, result)
    writer.close()
    return run.id


def test_reasoning_is_written_and_read_back_apart_from_the_reply(store: Store) -> None:
    run_id = stored_run(
        store, _result("done"), _result("cut", unfinished=True), _result("plain", None)
    )
    read = {result.item_id: result for result in store.iter_results(run_id)}
    assert read["done"] == _result("done")
    assert read["cut"].is_reasoning_unfinished and read["cut"].reply == ""
    assert read["plain"].reasoning is None
    assert store.browser().result(run_id, "done") == _result("done")
    [(pair, _)] = [(p.first, p.second) for p in store.browser().pairs(run_id, run_id, "all", 0, 1)]
    assert pair.reasoning == THINKING


def test_jsonl_and_csv_exports_carry_the_reasoning(store: Store, tmp_path: Path) -> None:
    run_id = stored_run(store, _result("done"))
    export_results(run_id, store.iter_results(run_id), tmp_path / "r.jsonl", "jsonl")
    [line] = (tmp_path / "r.jsonl").read_text().splitlines()
    row = json.loads(line)
    assert (row["reasoning"], row["usage"]["reasoning_tokens"]) == (THINKING, 7)
    export_results(run_id, store.iter_results(run_id), tmp_path / "r.csv", "csv")
    [flat] = csv.DictReader((tmp_path / "r.csv").open())
    assert (flat["reasoning"], flat["reply"], flat["reasoning_tokens"]) == (
        THINKING,
        "Answer: (B)",
        "7",
    )
    assert (flat["reasoning_unfinished"], flat["cached_reasoning_tokens"]) == ("0", "2")


def test_an_existing_store_migrates_and_its_results_read_without_reasoning(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    store_before(REASONING_STEP, path, "old", "Paris")
    with Store(path) as store:
        [old] = store.iter_results("r1")
        assert (old.reply, old.reasoning, old.is_reasoning_unfinished) == ("Paris", None, False)
        assert old.usage.reasoning_tokens == 0
        run_id = stored_run(store, _result("new"))
        assert list(store.iter_results(run_id)) == [_result("new")]
    with sqlite3.connect(path) as db:
        steps = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    assert REASONING_STEP in steps


def test_a_read_only_store_before_reasoning_still_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite"
    store_before(REASONING_STEP, path, "old", "Paris")
    before = path.read_bytes()
    # Read-only media: tests run as root, for whom permission bits grant every write.
    monkeypatch.setattr("rulebench.engine.store.connection.os.access", lambda *_: False)
    with Store(path, readonly=True) as store:
        [old] = store.iter_results("r1")
        assert (old.reply, old.reasoning) == ("Paris", None)
        assert store.browser().result("r1", "old") == old
        assert [p.first.item_id for p in store.browser().pairs("r1", "r1", "all", 0, 5)] == ["old"]
        [tally] = store.tally_results("r1")
        assert (tally.items, tally.reasoning_unfinished, tally.reasoning_tokens) == (1, 0, 0)
        assert store.run_delta().since("r1", None, START).run_rows == 1
    assert path.read_bytes() == before


def test_lone_surrogates_in_reasoning_are_repaired_before_caching_and_noted() -> None:
    completion = keepable(Completion(text="ok", reasoning="half an emoji \ud83d"))
    assert completion.reasoning == "half an emoji \ufffd"
    assert completion.text == "ok"
    assert completion.warnings == (
        "reasoning held 1 lone UTF-16 surrogate (cut emoji?), replaced by U+FFFD",
    )
