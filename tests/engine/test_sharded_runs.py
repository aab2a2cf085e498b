from pathlib import Path

from pydantic import JsonValue

from rulebench.core.shards import Shard
from rulebench.engine.runner import Runner, RunReport, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask


def place(report: RunReport) -> dict[str, JsonValue]:
    """The shard's place and counts, as its run's notes record them."""
    notes = report.run.notes["shard"]
    assert isinstance(notes, dict)
    return notes


def spec(shard: Shard | None = None, limit: int | None = None) -> RunSpec:
    return RunSpec(task="echo-test", model="scripted/echo", shard=shard, limit=limit)


async def test_shards_split_the_items_and_each_is_an_ordinary_run(
    store: Store, echo_task: EchoTask
) -> None:
    held: list[str] = []
    for index in (1, 2, 3):
        report = await Runner(store).run(
            echo_task, ScriptedModel("echo"), spec(Shard(index=index, count=3))
        )
        ids = [r.item_id for r in store.iter_results(report.run.id)]
        assert report.run.status == "completed"
        assert report.run.config["shard"] == {"index": index, "count": 3}
        assert report.run.notes["shard"] == {
            "index": index,
            "count": 3,
            "whole_items": 10,
            "shard_items": len(ids),
        }
        held += ids
    assert sorted(held) == sorted(item.id for item in echo_task.items())


async def test_a_shard_takes_its_part_of_the_limited_whole(
    store: Store, echo_task: EchoTask
) -> None:
    report = await Runner(store).run(
        echo_task, ScriptedModel("echo"), spec(Shard(index=1, count=1), 4)
    )
    assert place(report)["whole_items"] == 4
    assert store.count_results(report.run.id)["ok"] == 4


async def test_a_resumed_shard_runs_only_its_own_missing_items(
    tmp_path: Path, echo_task: EchoTask
) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        shard = Shard(index=2, count=2)
        first = await Runner(store).run(echo_task, ScriptedModel("echo"), spec(shard))
        ids = {r.item_id for r in store.iter_results(first.run.id)}
        again = await Runner(store).run(echo_task, ScriptedModel("echo"), spec(shard), first.run.id)
    assert again.completed_now == 0 and again.skipped == len(ids)
    assert again.run.status == "completed"


async def test_a_shard_that_no_item_falls_in_is_completed_and_counts_the_whole(
    store: Store,
) -> None:
    task = EchoTask(n=1)
    [item] = task.items()
    others = [i for i in range(1, 4) if not Shard(index=i, count=3).holds(item.id)]
    report = await Runner(store).run(
        task, ScriptedModel("echo"), spec(Shard(index=others[0], count=3))
    )
    assert report.run.status == "completed"
    assert place(report)["whole_items"] == 1
    assert place(report)["shard_items"] == 0
