"""`runs merge`: shards become one run; merging is idempotent; a conflict is one line."""

import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import StoreError
from rulebench.core.shards import Shard
from rulebench.engine.store.database import Store
from rulebench.engine.store.merge import merge_stores

from tests.engine.merge_fixtures import run_into

COUNT = 3


@pytest.fixture(scope="module")
def shard_stores(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("shards")
    paths = [folder / f"shard{index}.sqlite" for index in range(1, COUNT + 1)]
    for index, path in enumerate(paths, 1):
        run_into(path, Shard(index=index, count=COUNT))
    return paths


@pytest.fixture(scope="module")
def whole_outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[object, ...]]:
    path = tmp_path_factory.mktemp("whole") / "whole.sqlite"
    return list(outcomes(path, run_into(path, None)))


def outcomes(path: Path, run_id: str) -> list[tuple[str, str, str | None, float | None]]:
    with Store(path, readonly=True) as store:
        return sorted(
            (
                r.item_id,
                "error" if r.error else "ok",
                r.reply,
                r.outcome.score if r.outcome else None,
            )
            for r in store.iter_results(store.get_run(run_id).id)
        )


@settings(max_examples=12, deadline=None)
@given(st.lists(st.sampled_from(range(COUNT)), min_size=COUNT, max_size=2 * COUNT), st.data())
def test_shards_in_any_order_and_any_number_of_times_make_one_whole_run(
    shard_stores: list[Path],
    whole_outcomes: list[tuple[object, ...]],
    picks: list[int],
    data: st.DataObject,
) -> None:
    order = [*picks, *range(COUNT)]  # every shard at least once, some twice
    order = data.draw(st.permutations(order))
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "merged.sqlite"
        for index in order:
            merge_stores([shard_stores[index]], target)
        with Store(target, readonly=True) as store:
            [run] = store.list_runs()
            status = run.status
        assert status == "completed"
        assert outcomes(target, run.id) == whole_outcomes


def test_a_run_missing_a_shard_is_partial_and_says_which(
    shard_stores: list[Path], tmp_path: Path
) -> None:
    target = tmp_path / "merged.sqlite"
    report = merge_stores(shard_stores[:2], target)
    with Store(target, readonly=True) as store:
        run = store.get_run(report.sharded_runs[0])
    assert run.status == "partial"
    assert run.notes["reason"] == f"not merged yet: shard 3/{COUNT}"
    assert run.config["shard"] is None
    assert merge_stores(shard_stores[2:], target).results_added > 0
    with Store(target, readonly=True) as store:
        assert store.get_run(run.id).status == "completed"


def test_merging_the_same_store_twice_adds_nothing(tmp_path: Path) -> None:
    source = tmp_path / "a.sqlite"
    run_into(source, None)
    target = tmp_path / "t.sqlite"
    first = merge_stores([source], target)
    again = merge_stores([source, source], target)
    assert (first.runs_added, first.results_added) == (1, 12) and first.cache_added > 0
    assert (again.runs_added, again.results_added, again.cache_added) == (0, 0, 0)


def test_the_same_run_id_with_different_content_is_refused_naming_run_and_item(
    tmp_path: Path,
) -> None:
    source = tmp_path / "a.sqlite"
    run_id = run_into(source, None)
    changed = tmp_path / "b.sqlite"
    shutil.copy(source, changed)
    with sqlite3.connect(changed) as db:
        [(item_id,)] = db.execute("SELECT item_id FROM results ORDER BY item_id LIMIT 1")
        db.execute("UPDATE results SET reply = 'other' WHERE item_id = ?", (item_id,))
    other = run_into(changed, None)  # a run the refused merge must not bring half of
    target = tmp_path / "t.sqlite"
    merge_stores([source], target)
    with pytest.raises(StoreError, match=f"run {run_id}, item {item_id}: ") as caught:
        merge_stores([changed], target)
    assert "\n" not in str(caught.value)
    with Store(target, readonly=True) as store:
        assert [run.id for run in store.list_runs()] == [run_id]
        assert other not in {run.id for run in store.list_runs()}


def test_a_missing_source_is_one_line_and_leaves_the_target_alone(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no results store at"):
        merge_stores([tmp_path / "nope.sqlite"], tmp_path / "t.sqlite")
    assert not (tmp_path / "t.sqlite").exists()


def test_a_reader_of_the_target_keeps_its_view_while_a_merge_commits(
    shard_stores: list[Path], tmp_path: Path
) -> None:
    target = tmp_path / "t.sqlite"
    merge_stores(shard_stores[:1], target)
    reader = sqlite3.connect(target, isolation_level=None)
    try:
        reader.execute("BEGIN")
        [(before,)] = reader.execute("SELECT COUNT(*) FROM results").fetchall()
        merge_stores(shard_stores[1:], target)  # WAL: the writer does not wait for the reader
        assert reader.execute("SELECT COUNT(*) FROM results").fetchall() == [(before,)]
        reader.execute("COMMIT")
        [(after,)] = reader.execute("SELECT COUNT(*) FROM results").fetchall()
    finally:
        reader.close()
    assert after == 12 > before


def test_merges_of_merges_join_the_same_run(shard_stores: list[Path], tmp_path: Path) -> None:
    left, right, top = tmp_path / "l.sqlite", tmp_path / "r.sqlite", tmp_path / "top.sqlite"
    merge_stores(shard_stores[:2], left)
    merge_stores(shard_stores[1:], right)
    report = merge_stores([left, right, left], top)
    with Store(top, readonly=True) as store:
        [run] = store.list_runs()
        assert report.sharded_runs == [run.id]
        assert run.status == "completed" and store.count_results(run.id)["ok"] == 12
        shards = run.notes["shards"]
        assert isinstance(shards, dict) and sorted(shards) == ["1", "2", "3"]
