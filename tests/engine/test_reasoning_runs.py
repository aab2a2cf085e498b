"""A thinking model's runs: the answer is scored, the thinking stored, fresh or from the cache."""

import json
import sqlite3

from rulebench.core.items import ItemResult
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask

SPEC = RunSpec(task="echo-test", model="scripted/fixed")


def _thinking_model() -> ScriptedModel:
    return ScriptedModel("fixed", reply="(B)", thinking="maybe (A)")


def _results(store: Store, run_id: str) -> list[tuple[str, str | None, str | None, str | None]]:
    """What a result scored and stored, item by item, leaving out timing and cache counts."""

    def seen(result: ItemResult) -> tuple[str, str | None, str | None, str | None]:
        answer = result.outcome.answer if result.outcome is not None else None
        return result.item_id, result.reply, result.reasoning, answer

    return sorted(seen(result) for result in store.iter_results(run_id))


async def test_the_answer_is_scored_and_the_thinking_stored(store: Store) -> None:
    report = await Runner(store).run(EchoTask(2), _thinking_model(), SPEC)
    results = _results(store, report.run.id)
    assert {(reply, reasoning, answer) for _, reply, reasoning, answer in results} == {
        ("(B)", "maybe (A)", "(B)")
    }


def _unsplit_cache(store: Store) -> int:
    """Rewrite every cached reply as a version before reasoning cached it: all in `text`."""
    db = sqlite3.connect(store.path)
    rows = db.execute("SELECT key, completion FROM cache").fetchall()
    for key, completion in rows:
        old = json.loads(completion)
        old["text"] = f"<think>{old['reasoning']}</think>{old['text']}"
        del old["reasoning"], old["is_reasoning_unfinished"]
        db.execute("UPDATE cache SET completion = ? WHERE key = ?", (json.dumps(old), key))
    db.commit()
    db.close()
    return len(rows)


async def test_a_reply_cached_before_reasoning_scores_and_stores_as_a_fresh_one(
    store: Store,
) -> None:
    fresh = await Runner(store).run(EchoTask(3), _thinking_model(), SPEC)
    assert _unsplit_cache(store) == 3
    cached = await Runner(store).run(EchoTask(3), _thinking_model(), SPEC)
    assert all(result.cache_hits == 1 for result in store.iter_results(cached.run.id))
    assert _results(store, cached.run.id) == _results(store, fresh.run.id)


async def test_an_item_cut_in_its_thinking_is_counted_but_not_scored(store: Store) -> None:
    from rulebench.engine.task import CUT_SHORT
    from rulebench.models.scripted import ScriptedRule

    model = ScriptedModel("rules", rules=[ScriptedRule(contains="question 1", reply="<think>1 2")])
    report = await Runner(store).run(EchoTask(3), model, SPEC)
    results = {r.metadata["index"]: r for r in store.iter_results(report.run.id)}
    cut = results[1]
    assert cut.is_reasoning_unfinished and cut.reply == "" and cut.reasoning == "1 2"
    assert cut.outcome is not None and cut.outcome.score is None and cut.outcome.reason == CUT_SHORT
    assert cut.outcome.details["before_cut"] == {"score": 0.0, "passed": None, "answer": None}
    for index in (0, 2):
        outcome = results[index].outcome
        assert outcome is not None and outcome.score is not None
        assert not results[index].is_reasoning_unfinished
    assert report.run.status == "completed"
