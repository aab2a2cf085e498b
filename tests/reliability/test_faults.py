"""A run against a misbehaving server finishes: transient faults retried, the rest errors."""

from collections.abc import Iterator

import pytest
from pydantic import JsonValue

from rulebench.checks.loadtest import LoadTestTask
from rulebench.core.items import Item, ItemIds, Outcome
from rulebench.core.messages import Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.summary import summarize
from rulebench.engine.task import Session
from rulebench.models.base import BackendOptions
from rulebench.models.registry import create_model
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

FAST_RETRIES = {
    "max_retries": "4",
    "initial_backoff_s": "0.01",
    "max_backoff_s": "0.05",
    "timeout_s": "1",
}
TRANSIENT = ["500x2", "502x1", "503x1", "429r0x2", "malformedx1", "dropx1", "nochoicesx1", "slowx1"]
PERMANENT = ["500", "400"]


class MarkerTask:
    """One item per fault marker plus three clean ones; right when the echo holds the token."""

    name = "markers"

    def config(self) -> dict[str, JsonValue]:
        return {}

    def items(self) -> Iterator[Item]:
        ids = ItemIds()
        for index, fault in enumerate(["", "", "", *TRANSIENT, *PERMANENT]):
            text = f"token{index}" + (f" [[fault:{fault}]]" if fault else "")
            yield Item(
                id=ids(text),
                messages=(Message(role="user", content=text),),
                target=f"token{index}",
                metadata={"fault": fault or "none"},
            )

    async def solve(self, item: Item, session: Session) -> Outcome:
        completion = await session.generate(item.messages)
        return Outcome(score=float(str(item.target) in completion.text))


async def test_transient_faults_are_retried_and_permanent_ones_recorded_as_errors(
    store: Store,
) -> None:
    async with MockOpenAIServer(MockServerConfig(slow_s=30)) as server:
        model = create_model(
            "openai-api/mock/echo", BackendOptions(base_url=server.url, args=FAST_RETRIES)
        )
        spec = RunSpec(task="markers", model="openai-api/mock/echo", concurrency=8)
        report = await Runner(store).run(MarkerTask(), model, spec)
        await model.aclose()
        attempts = {f: len(server.requests_with(f"[[fault:{f}]]")) for f in TRANSIENT + PERMANENT}

    # Two items ended in an error: every item has a result, but the run is not complete.
    assert report.run.status == "failed"
    assert "2 of 13 items ended in an error" in str(report.run.notes["reason"])
    results = {r.metadata["fault"]: r for r in store.iter_results(report.run.id)}
    for fault in ["none", *TRANSIENT]:
        outcome = results[fault].outcome
        assert outcome is not None and outcome.score == 1.0, (fault, results[fault].error)
    assert "500" in str(results["500"].error) and results["500"].outcome is None
    assert "400" in str(results["400"].error)
    # Retried until success (x2 faults: 3 attempts), never for a 400, up to the cap for a hard 500.
    assert attempts["500x2"] == 3 and attempts["429r0x2"] == 3 and attempts["dropx1"] == 2
    assert attempts["400"] == 1 and attempts["500"] == 5
    overall = summarize(store.tally_results(report.run.id), grouped=False)[-1]
    assert overall.errors == 2
    # Errors are not wrong answers: accuracy counts only the items that finished.
    assert (
        overall.accuracy is not None and overall.accuracy.n == 11 and overall.accuracy.value == 1.0
    )


@pytest.mark.timeout(120)
async def test_a_chaos_run_finishes_with_every_item_answered_correctly(store: Store) -> None:
    config = MockServerConfig(fault_rate=0.3, fault_seed=3, keep_log=True)
    async with MockOpenAIServer(config) as server:
        args = FAST_RETRIES | {"max_retries": "10"}
        model = create_model("openai-api/mock/echo", BackendOptions(base_url=server.url, args=args))
        spec = RunSpec(task="loadtest", model="openai-api/mock/echo", concurrency=32)
        report = await Runner(store).run(LoadTestTask(n=300), model, spec)
        await model.aclose()
        faults = sum(1 for r in server.requests if r["fault"])
    assert faults > 50  # the server really misbehaved
    assert store.count_results(report.run.id) == {"ok": 300, "error": 0}
    overall = summarize(store.tally_results(report.run.id), grouped=False)[-1]
    assert overall.accuracy is not None and overall.accuracy.value == 1.0
