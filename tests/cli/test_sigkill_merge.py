"""SIGKILL around `runs merge`: a shard killed mid-run and resumed, and a merge killed mid-way.

A shard is an ordinary run: killed, it is resumed in its own store, and the merge of all four
equals the run made whole. A merge is one transaction per source: killed while copying, it
leaves the target as it was (SQLite's quick_check, the counts), and run again it finishes as
an uninterrupted merge does.
"""

import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rulebench.core.shards import shard_of
from rulebench.engine.store.database import Store
from rulebench.engine.store.merge import merge_stores

from tests.cli.sharded_runs import assert_exits_cleanly, merge, report, results, start_shards
from tests.command import rulebench, rulebench_command
from tests.engine.merge_fixtures import content, counts, run_into

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

ITEMS = 40
SLOW_RUN = (
    "run", "inferential", "--task", "kinship", "--limit", str(ITEMS), "-m", "scripted/echo",
    "-M", "delay_s=0.2", "-c", "1", "--no-cache",
)  # fmt: skip
"""About 2 s a shard, one item at a time: a kill lands mid-run. Without the cache, a reply
cached just before the kill cannot make the resumed shard's token counts differ."""


def stored(store: Path) -> int:
    """Results the store holds so far (0 while its file or schema is not there yet)."""
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.Error:
        return 0


def wait_for(predicate: Callable[[], bool], what: str, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.mark.timeout(300)
def test_a_shard_killed_and_resumed_merges_into_the_whole_run(tmp_path: Path) -> None:
    whole = tmp_path / "whole.sqlite"
    assert rulebench(*SLOW_RUN, "--store", str(whole)).returncode == 0
    whole_id, whole_results = results(whole)
    sizes = [sum(shard_of(row[0], 4) == index for row in whole_results) for index in (1, 2, 3, 4)]
    victim = sizes.index(max(sizes))  # the longest shard: the most room to land mid-run
    shards = [tmp_path / f"shard{index}.sqlite" for index in range(1, 5)]
    running = start_shards(SLOW_RUN, shards)
    wait_for(lambda: stored(shards[victim]) >= 2, "the shard's first results")
    running[victim].send_signal(signal.SIGKILL)
    assert running[victim].wait(timeout=60) == -signal.SIGKILL
    for index, process in enumerate(running):
        if index != victim:
            assert_exits_cleanly(process)
    with Store(shards[victim], readonly=True) as db:
        [killed] = db.list_runs()
        assert db.effective_status(killed) == "killed"
        assert 2 <= db.count_results(killed.id)["ok"] < sizes[victim]

    merged = tmp_path / "merged.sqlite"
    merge(shards, merged)  # before the resume: a partial run that names the killed shard
    with Store(merged, readonly=True) as db:
        [joined] = db.list_runs()
        assert joined.status == "partial"
    resumed = subprocess.run(
        rulebench_command("run", "--resume", killed.id, "--store", str(shards[victim])),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    merge(shards, merged)

    merged_id, merged_results = results(merged)
    assert merged_id == joined.id
    assert merged_results == whole_results and len(merged_results) == ITEMS  # each item once
    with Store(merged, readonly=True) as db:
        assert db.get_run(merged_id).status == "completed"
    assert report(merged, merged_id, tmp_path / "m") == report(whole, whole_id, tmp_path / "w")


def big_source(path: Path, copies: int) -> None:
    """A store of one run's results repeated `copies` times (new item ids): long to copy."""
    run_into(path, None)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
        "INSERT INTO results SELECT run_id, item_id || '-' || n.i, status, messages, reply, "
        "answer, score, passed, reason, details, error, prompt_tokens, completion_tokens, "
        "latency_s, calls, cache_hits, system_merged, metadata, finished_at, warnings, "
        "cached_prompt_tokens, cached_completion_tokens, scoring_tokens, endpoints, reasoning, "
        "reasoning_unfinished, reasoning_tokens, cached_reasoning_tokens, attempts "
        "FROM results, n",
        (copies,),
    )
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def copy_store(source: Path, into: Path) -> None:
    with sqlite3.connect(source) as old, sqlite3.connect(into) as new:
        old.backup(new)


def wal_bytes(store: Path) -> int:
    wal = store.with_name(store.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


@pytest.mark.timeout(300)
def test_a_merge_killed_mid_way_keeps_the_target_and_finishes_when_run_again(
    tmp_path: Path,
) -> None:
    target, source = tmp_path / "target.sqlite", tmp_path / "big.sqlite"
    small = tmp_path / "small.sqlite"
    run_into(small, None)
    merge_stores([small], target)  # what the target had before
    big_source(source, 6000)
    expected = tmp_path / "expected.sqlite"
    copy_store(target, expected)
    merge_stores([source], expected)  # the same merge, not interrupted
    before = counts(target)
    with sqlite3.connect(target) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    merging = subprocess.Popen(
        rulebench_command("runs", "merge", str(source), "--into", str(target)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    wait_for(lambda: wal_bytes(target) > 1 << 20, "the merge to be copying")  # 1 MiB in
    merging.send_signal(signal.SIGKILL)
    assert merging.wait(timeout=60) == -signal.SIGKILL

    with sqlite3.connect(target) as db:
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    assert counts(target) == before  # nothing of the killed merge, nothing lost
    merge([source], target)
    assert counts(target) == counts(expected)
    assert content(target) == content(expected)
