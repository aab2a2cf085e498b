"""Token counts per item: generated, served from the cache and read for scoring, kept apart."""

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import rulebench
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Completion, GenerateConfig, Message, Usage
from rulebench.engine.store.cache import CacheKey
from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import MIGRATIONS
from rulebench.engine.summary import summarize
from rulebench.engine.task import Session
from rulebench.models.base import ChoiceScores, ModelInfo

QUESTION = (Message(role="user", content="Which permit opens zone 14?"),)


class CountingModel:
    """Replies "A" with fixed token counts, naming a replica in turn; scores by choice length."""

    def __init__(self) -> None:
        self.info = ModelInfo(provider="fake", name="counting", identity="fake/counting")
        self.calls = 0

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        self.calls += 1
        return Completion(
            text="A",
            usage=Usage(prompt_tokens=10, completion_tokens=3),
            endpoint=f"http://replica-{self.calls % 2}/v1",
        )

    async def score_choices(
        self, messages: Sequence[Message], choices: Sequence[str]
    ) -> ChoiceScores:
        return ChoiceScores([-float(len(c)) for c in choices], 7 * len(choices))

    async def aclose(self) -> None:
        pass


class DictCache:
    """The ReplyCache protocol over a dict (the store's cache is exercised by a real run below)."""

    def __init__(self) -> None:
        self.replies: dict[str, Completion] = {}

    def get(self, key: CacheKey) -> Completion | None:
        found = self.replies.get(key.key)
        return None if found is None else found.model_copy(update={"cached": True})

    def put(self, key: CacheKey, completion: Completion, item_id: str) -> None:
        self.replies[key.key] = completion


async def test_cached_replies_are_counted_apart_and_name_no_endpoint() -> None:
    model = CountingModel()
    cache = DictCache()
    first = Session(model, GenerateConfig(), cache, "i1")
    await first.generate(QUESTION)
    await first.generate([*QUESTION, Message(role="user", content="Sure?")])
    second = Session(model, GenerateConfig(), cache, "i2")
    await second.generate(QUESTION)  # answered before: from the cache
    assert first.usage == Usage(prompt_tokens=20, completion_tokens=6)
    assert first.cached_usage == Usage()
    assert first.endpoints == ["http://replica-1/v1", "http://replica-0/v1"]
    assert second.usage == Usage() and second.cache_hits == 1
    assert second.cached_usage == Usage(prompt_tokens=10, completion_tokens=3)
    assert second.endpoints == []


async def test_scoring_tokens_are_counted_apart_from_generation() -> None:
    session = Session(CountingModel(), GenerateConfig(), None, "i1")
    scores = await session.score_choices(QUESTION, ["yes", "no", "maybe"])
    assert scores == [-3.0, -2.0, -5.0]
    assert session.scoring_tokens == 21 and session.usage == Usage()


def _result(item: str, **fields: object) -> ItemResult:
    return ItemResult(item_id=item, outcome=Outcome(score=1.0), **fields)


def test_token_columns_round_trip_and_sum(store: Store) -> None:
    run = store.create_run("t", "m", {})
    writer = store.writer()
    writer.put_result(
        run.id,
        _result(
            "a",
            usage=Usage(prompt_tokens=5, completion_tokens=2),
            endpoints=("http://b/v1", "http://a/v1"),
        ),
    )
    writer.put_result(
        run.id,
        _result("b", cached_usage=Usage(prompt_tokens=4, completion_tokens=1), cache_hits=1),
    )
    writer.put_result(run.id, _result("c", scoring_tokens=30))
    writer.close()
    by_id = {r.item_id: r for r in store.iter_results(run.id)}
    assert by_id["a"].endpoints == ("http://b/v1", "http://a/v1")
    assert by_id["b"].cached_usage == Usage(prompt_tokens=4, completion_tokens=1)
    assert by_id["c"].scoring_tokens == 30 and by_id["c"].endpoints == ()
    [total] = summarize(store.tally_results(run.id), grouped=False)
    assert (total.prompt_tokens, total.completion_tokens) == (5, 2)
    assert (total.cached_prompt_tokens, total.cached_completion_tokens) == (4, 1)
    assert total.scoring_tokens == 30 and total.cache_hits == 1


def test_results_stored_before_the_token_columns_read_zero(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, sql in MIGRATIONS[:2]:
        db.executescript(sql)
        db.execute("INSERT INTO _migrations VALUES (?, 'then')", (name,))
    db.execute("INSERT INTO runs VALUES ('r1','t','m','{}','0','x',NULL,'completed',1,'{}')")
    db.execute(
        "INSERT INTO results (run_id, item_id, status, messages, reply, details, "
        "prompt_tokens, completion_tokens, latency_s, calls, cache_hits, system_merged, "
        "metadata, finished_at) VALUES ('r1','i1','ok',?,'a','{}',9,4,0.1,1,0,0,'{}','x')",
        (json.dumps([{"role": "user", "content": "q"}]),),
    )
    db.commit()
    db.close()
    with Store(path, readonly=True) as store:
        [result] = store.iter_results("r1")
        [total] = summarize(store.tally_results("r1"), grouped=False)
    assert result.usage == Usage(prompt_tokens=9, completion_tokens=4)
    assert result.cached_usage == Usage() and result.scoring_tokens == 0
    assert result.endpoints == ()
    assert total.cached_prompt_tokens == 0 and total.scoring_tokens == 0


def test_a_rerun_from_the_cache_moves_every_token_to_cached(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    fresh = rulebench.run("smoke", "scripted/echo", store=store)
    again = rulebench.run("smoke", "scripted/echo", store=store)
    with Store(store, readonly=True) as db:
        [first] = summarize(db.tally_results(fresh.run.id), grouped=False)
        [second] = summarize(db.tally_results(again.run.id), grouped=False)
    assert first.prompt_tokens > 0 and first.cached_prompt_tokens == 0
    assert second.prompt_tokens == 0 and second.completion_tokens == 0
    assert second.cached_prompt_tokens == first.prompt_tokens
    assert second.cached_completion_tokens == first.completion_tokens


async def test_a_run_records_the_transcript_and_the_replicas(store: Store) -> None:
    from rulebench.engine.runner import Runner, RunSpec

    from tests.conftest import EchoTask

    class TranscriptModel(CountingModel):
        def __init__(self) -> None:
            super().__init__()
            self.info = self.info.model_copy(update={"transcript": '{"user": "User: {content}"}'})

    report = await Runner(store).run(
        EchoTask(4), TranscriptModel(), RunSpec(task="echo-test", model="fake/counting")
    )
    assert report.run.notes["transcript_template"] == '{"user": "User: {content}"}'
    results = list(store.iter_results(report.run.id))
    assert {e for r in results for e in r.endpoints} == {
        "http://replica-0/v1",
        "http://replica-1/v1",
    }
    assert all(len(r.endpoints) == 1 and r.usage.prompt_tokens == 10 for r in results)
