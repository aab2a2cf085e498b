"""Re-merging a store whose runs went on since: an error finished since is progress.

A shard (or a plain run) merged while some of its items had ended in an error, then resumed
in its own store, brings finished results for those items: they replace the errors in the
target, and the joined run becomes completed. Also: the thinking of a reasoning model is
carried by the merge, and is part of what makes two results the same.
"""

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from rulebench.core.errors import ModelError, StoreError
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.core.shards import Shard
from rulebench.engine.store.database import Store
from rulebench.engine.store.merge import merge_stores
from rulebench.models.scripted import ScriptedModel

from tests.engine.merge_fixtures import content, run_into

FAILING = "question 3"


class FailsOnOneItem(ScriptedModel):
    """The echo model, except that the item asking FAILING ends in an error (no retry)."""

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        if messages[-1].content == FAILING:
            raise ModelError("the server said no")
        return await super().generate(messages, config)


def resume(path: Path, run_id: str, shard: Shard | None) -> None:
    assert run_into(path, shard, resume_id=run_id) == run_id


def statuses(path: Path, run_id: str) -> dict[str, int]:
    with Store(path, readonly=True) as store:
        return store.count_results(run_id)


@pytest.mark.parametrize("count", [None, 2])
def test_a_run_resumed_after_a_merge_replaces_its_errors_in_the_target(
    tmp_path: Path, count: int | None
) -> None:
    shards = [Shard(index=i, count=count) for i in range(1, count + 1)] if count else [None]
    paths = [tmp_path / f"s{i}.sqlite" for i in range(len(shards))]
    ids = [run_into(p, s, model=FailsOnOneItem("echo")) for p, s in zip(paths, shards, strict=True)]
    target = tmp_path / "t.sqlite"
    first = merge_stores(paths, target)
    [merged_id] = first.sharded_runs or ids
    assert statuses(target, merged_id) == {"ok": 11, "error": 1}
    with Store(target, readonly=True) as store:
        assert store.get_run(merged_id).status != "completed"

    for path, run_id, shard in zip(paths, ids, shards, strict=True):
        resume(path, run_id, shard)
    again = merge_stores(paths, target)

    assert (again.results_replaced, again.results_added) == (1, 0)
    assert statuses(target, merged_id) == {"ok": 12, "error": 0}
    with Store(target, readonly=True) as store:
        assert store.get_run(merged_id).status == "completed"
    whole = tmp_path / "whole.sqlite"
    whole_id = run_into(whole, None)
    assert content(target, merged_id) == content(whole, whole_id)
    with sqlite3.connect(target) as db:  # the search index follows the replaced row
        [(hits,)] = db.execute(
            "SELECT COUNT(*) FROM results_search WHERE results_search MATCH ?", ('"question 3"',)
        ).fetchall()
    assert hits == 1


def test_an_older_copy_with_the_error_does_not_undo_the_progress(tmp_path: Path) -> None:
    source = tmp_path / "s.sqlite"
    run_id = run_into(source, None, model=FailsOnOneItem("echo"))
    stale = tmp_path / "stale.sqlite"
    merge_stores([source], stale)  # a copy taken while the item had failed
    resume(source, run_id, None)
    target = tmp_path / "t.sqlite"
    merge_stores([source], target)
    report = merge_stores([stale], target)
    assert report.results_replaced == 0
    assert statuses(target, run_id) == {"ok": 12, "error": 0}
    with Store(target, readonly=True) as store:
        assert store.get_run(run_id).status == "completed"


def test_the_thinking_is_carried_and_is_part_of_the_result(tmp_path: Path) -> None:
    shards = [tmp_path / f"s{i}.sqlite" for i in (1, 2)]
    for index, path in enumerate(shards, 1):
        run_into(path, Shard(index=index, count=2), model=ScriptedModel("echo", thinking="hm"))
    target = tmp_path / "t.sqlite"
    [merged_id] = merge_stores(shards, target).sharded_runs
    with Store(target, readonly=True) as store:
        results = list(store.iter_results(merged_id))
    assert len(results) == 12
    assert {r.reasoning for r in results} == {"hm"}
    assert all(r.messages[-1].reasoning == "hm" for r in results)

    other = tmp_path / "other.sqlite"
    with sqlite3.connect(shards[0]) as db:  # the same answers, thought otherwise
        db.execute("UPDATE results SET reasoning = 'otherwise'")
    merge_stores([shards[0]], other)
    with pytest.raises(StoreError, match=f"run {merged_id}, item "):
        merge_stores([other], target)


def test_a_shard_killed_before_it_wrote_its_notes_is_known_by_its_index(tmp_path: Path) -> None:
    shards = [tmp_path / f"s{i}.sqlite" for i in (1, 2)]
    ids = [run_into(path, Shard(index=i, count=2)) for i, path in enumerate(shards, 1)]
    with sqlite3.connect(shards[1]) as db:  # as a SIGKILL leaves it: running, no notes
        db.execute("UPDATE runs SET status = 'running', ended_at = NULL, notes = '{}'")
    target = tmp_path / "t.sqlite"
    [joined] = merge_stores(shards, target).sharded_runs
    with Store(target, readonly=True) as store:
        run = store.get_run(joined)
    assert run.status == "partial"
    assert run.notes["reason"] == "shards not completed: 2/2 (running)"
    shard_notes = run.notes["shards"]
    assert isinstance(shard_notes, dict) and sorted(shard_notes) == ["1", "2"]
    resume(shards[1], ids[1], Shard(index=2, count=2))
    merge_stores(shards, target)
    with Store(target, readonly=True) as store:
        assert store.get_run(joined).status == "completed"
