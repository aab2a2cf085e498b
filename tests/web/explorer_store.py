"""Stores for the explorer's tests: real runs of scripted models, and large synthetic runs.

Large runs are written through the store's own writer (the path a live run takes), with
results built here rather than played, so 100,000 of them take seconds.
"""

from collections.abc import Iterable
from pathlib import Path

from fastapi.testclient import TestClient
from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.store.writer import StoreWriter
from rulebench.web.app import create_app

SCENARIOS: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}
# The address the app is served at in tests: a loopback name, as the Host check wants.
BASE_URL = "http://127.0.0.1:8765"
HOSTILE = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> '
    '" onmouseover="window.__pwned=3" [link](http://evil.example) \x1b[2J'
)
SCENARIO_NAMES = ("Encryption", "Hodor", "SimonSays", "AccessControl")


def explorer(store: Path) -> TestClient:
    """A client of the explorer app on `store` (use it as a context manager)."""
    return TestClient(create_app(store), base_url=BASE_URL)


def scenarios_run(store: Path, model: str, **model_args: str) -> str:
    """A real scenarios run (basic suite, one case per behavior: 19 items); its id."""
    report = rulebench.run("scenarios", model, config=SCENARIOS, store=store, model_args=model_args)
    return report.run.id


def synthetic_result(index: int) -> ItemResult:
    """Item `index` of a synthetic scenarios-like run: every 7th an error, every 3rd failed."""
    scenario = SCENARIO_NAMES[index % len(SCENARIO_NAMES)]
    metadata = {"scenario": scenario, "behavior": f"{scenario}/rule", "repeat": 0}
    messages = (Message(role="user", content=f"question {index}"),)
    if index % 7 == 6:
        return ItemResult(
            item_id=f"item-{index:06d}",
            messages=messages,
            error="server said 503",
            metadata=metadata,
        )
    return ItemResult(
        item_id=f"item-{index:06d}",
        messages=(*messages, Message(role="assistant", content=f"reply {index}")),
        reply=f"reply {index}",
        outcome=Outcome(passed=index % 3 != 0, reason=f"turn 1: rule {index % 3}"),
        metadata=metadata,
    )


def put_results(writer: StoreWriter, run_id: str, indexes: Iterable[int]) -> None:
    """Store the synthetic results with these indexes through `writer`."""
    for index in indexes:
        writer.put_result(run_id, synthetic_result(index))


def live_run(db: Store, count: int) -> tuple[RunRecord, StoreWriter]:
    """A scenarios run still running, its first `count` results stored; its writer stays open."""
    run = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
    writer = db.writer()
    put_results(writer, run.id, range(count))
    writer.flush()
    return run, writer


def synthetic_run(store: Path, count: int, model: str = "scripted/synthetic") -> str:
    """A finished run of `count` synthetic results, written by the store's writer; its id."""
    with Store(store) as db:
        run = db.create_run("scenarios", model, {"task": "scenarios"})
        writer = db.writer()
        for index in range(count):
            writer.put_result(run.id, synthetic_result(index))
        writer.close()
        db.finish_run(run.id, "completed", {})
    return run.id
