"""Bad input to `runs merge`: each refused in one line, before the target loses anything.

Shards of one run started with different options, a store from a newer rulebench, a damaged
or locked source, a missing one. The target is checked after each refusal: its counts, its
content and SQLite's quick_check are as they were.
"""

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rulebench import __version__
from rulebench.core.errors import StoreError
from rulebench.core.messages import GenerateConfig
from rulebench.core.shards import Shard
from rulebench.engine.store.database import Store
from rulebench.engine.store.merge import merge_stores

from tests.engine.merge_fixtures import ECHO, ITEMS, content, counts, run_into

LONGER = ECHO.model_copy(update={"generate": GenerateConfig(max_tokens=100)})


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """A target that already holds one run: what every refusal must leave alone."""
    source, path = tmp_path / "before.sqlite", tmp_path / "target.sqlite"
    run_into(source, None)
    merge_stores([source], path)
    return path


def snapshot(path: Path) -> tuple[object, ...]:
    with sqlite3.connect(path) as db:
        [(check,)] = db.execute("PRAGMA quick_check").fetchall()
    return check, counts(path), content(path)


def refused(sources: list[Path], target: Path, *parts: str) -> str:
    """Merge, expect a one-line StoreError holding every part, and the target unchanged."""
    before = snapshot(target)
    with pytest.raises(StoreError) as caught:
        merge_stores(sources, target)
    message = str(caught.value)
    assert "\n" not in message
    for part in parts:
        assert part in message, (part, message)
    assert snapshot(target) == before == ("ok", *before[1:])
    return message


def test_shards_of_one_run_with_different_options_are_refused_naming_the_field(
    tmp_path: Path, target: Path
) -> None:
    one, two = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    first = run_into(one, Shard(index=1, count=2))
    second = run_into(two, Shard(index=2, count=2), spec=LONGER)
    merge_stores([one], target)  # alone it is fine: a partial run, waiting for shard 2/2
    message = refused([two], target, "generate.max_tokens", "256", "100", first, second)
    assert "echo-test on scripted/echo, 2 shards" in message
    assert "only base_url, concurrency, adaptive_concurrency, order, shard may differ" in message
    other = tmp_path / "other.sqlite"
    merge_stores([two], other)  # nor does it slip in through a merge of merges
    refused([other], target, "generate.max_tokens")


def test_shards_may_differ_in_where_and_how_fast_they_ran(tmp_path: Path) -> None:
    one, two = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    run_into(one, Shard(index=1, count=2))
    faster = ECHO.model_copy(update={"concurrency": 3, "base_url": "http://node2:8000/v1"})
    run_into(two, Shard(index=2, count=2), spec=faster)
    target = tmp_path / "t.sqlite"
    [joined] = merge_stores([one, two], target).sharded_runs
    with Store(target, readonly=True) as store:
        assert store.get_run(joined).status == "completed"
        assert store.count_results(joined)["ok"] == ITEMS


def test_two_whole_sharded_runs_of_different_options_stay_two_runs(tmp_path: Path) -> None:
    stores: list[Path] = []
    for spec in (ECHO, LONGER):
        for index in (1, 2):
            stores.append(tmp_path / f"{len(stores)}.sqlite")
            run_into(stores[-1], Shard(index=index, count=2), spec=spec)
    target = tmp_path / "t.sqlite"
    report = merge_stores(stores, target)
    with Store(target, readonly=True) as store:
        assert [store.get_run(r).status for r in report.sharded_runs] == ["completed"] * 2


def newer(path: Path) -> None:
    """Make a store look as if a later rulebench had written it."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("INSERT INTO _migrations VALUES ('900_from_the_future', datetime('now'))")
    db.execute("UPDATE runs SET version = '9.1.0'")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all in the main file, to be copied
    db.close()


def test_a_store_from_a_newer_rulebench_is_refused_naming_both_versions(
    tmp_path: Path, target: Path
) -> None:
    source = tmp_path / "newer.sqlite"
    run_into(source, None)
    newer(source)
    refused([source], target, str(source), "rulebench 9.1.0", f"this rulebench {__version__}")
    newer_target = tmp_path / "newer-target.sqlite"
    shutil.copy(source, newer_target)
    plain = tmp_path / "plain.sqlite"
    run_into(plain, None)
    refused([plain], newer_target, str(newer_target), "9.1.0", __version__)


def test_a_file_of_garbage_is_refused(tmp_path: Path, target: Path) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"\x13\x37 not a database at all " * 200)
    refused([garbage], target, str(garbage), "not an SQLite database")
    assert garbage.read_bytes().startswith(b"\x13\x37")  # left as it was


def test_a_truncated_store_is_refused(tmp_path: Path, target: Path) -> None:
    source = tmp_path / "whole.sqlite"
    for index in range(20):  # enough pages that half the file lacks some of them
        run_into(source, None, spec=ECHO.model_copy(update={"limit": ITEMS - index % 3}))
    with sqlite3.connect(source) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = (tmp_path / "whole.sqlite").read_bytes()
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(data[: len(data) // 2])
    refused([source, cut], target, str(cut))


def test_a_store_with_damaged_pages_is_refused_before_any_source_is_copied(
    tmp_path: Path, target: Path
) -> None:
    good, source = tmp_path / "good.sqlite", tmp_path / "damaged.sqlite"
    run_into(good, None)
    for _ in range(10):
        run_into(source, None)
    with sqlite3.connect(source) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        [(page_size,)] = db.execute("PRAGMA page_size").fetchall()
        leaves = db.execute(  # the results' leaf pages: the store still opens
            "SELECT pageno FROM dbstat WHERE name = 'results' AND pagetype = 'leaf'"
        ).fetchall()
    assert len(leaves) > 1
    with source.open("r+b") as handle:
        for (page,) in leaves:
            handle.seek((page - 1) * page_size)
            handle.write(b"\xff" * 64)
    refused([good, source], target, str(source), "damaged")


HOLD_LOCK = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA locking_mode=" + sys.argv[2])
db.execute("BEGIN EXCLUSIVE")
db.execute("UPDATE runs SET notes = json_set(notes, '$.held', 1)")
print("held", flush=True)
time.sleep(120)
"""


def hold_lock(path: Path, mode: str) -> "subprocess.Popen[str]":
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path), mode], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


@pytest.mark.subprocess
def test_a_source_another_process_holds_exclusively_is_refused(
    tmp_path: Path, target: Path
) -> None:
    source = tmp_path / "locked.sqlite"
    run_into(source, None)
    holder = hold_lock(source, "EXCLUSIVE")
    try:
        refused([source], target, str(source), "locked")
    finally:
        holder.kill()
        holder.wait()
    merge_stores([source], target)  # once it lets go, the merge goes through
    assert counts(target)[0] == 2


@pytest.mark.subprocess
def test_a_source_with_a_writer_mid_transaction_merges_what_it_committed(
    tmp_path: Path, target: Path
) -> None:
    source = tmp_path / "writing.sqlite"
    run_id = run_into(source, None)
    holder = hold_lock(source, "NORMAL")  # WAL: BEGIN EXCLUSIVE still lets readers in
    try:
        report = merge_stores([source], target)
    finally:
        holder.kill()
        holder.wait()
    assert (report.runs_added, report.results_added) == (1, ITEMS)
    with Store(target, readonly=True) as store:
        assert "held" not in store.get_run(run_id).notes


def test_a_missing_source_among_good_ones_changes_nothing(tmp_path: Path, target: Path) -> None:
    good = tmp_path / "good.sqlite"
    run_into(good, None)
    refused([good, tmp_path / "nope.sqlite"], target, "no results store at", "nope.sqlite")


def test_shards_that_do_not_fit_yet_and_differ_are_merged_with_a_warning(
    tmp_path: Path, target: Path
) -> None:
    one, two = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    first = run_into(one, Shard(index=1, count=3))
    second = run_into(two, Shard(index=2, count=3), spec=LONGER)
    report = merge_stores([one, two], target)  # shard 3/3 is not there: no proof of a mistake
    [warning] = report.warnings
    assert "generate.max_tokens" in warning and "differ" in warning
    assert len(report.sharded_runs) == 2 and first != second
    same = tmp_path / "same.sqlite"
    run_into(same, Shard(index=2, count=3))
    assert merge_stores([one, same], tmp_path / "t2.sqlite").warnings == []
