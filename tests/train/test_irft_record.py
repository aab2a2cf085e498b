"""The IRFT run file: invocations and their totals, and writes that a kill cannot tear (fast)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.train.atomic_write import remove_stale, replace_folder, staging, write_json
from rulebench.train.irft_record import (
    RUN_FILE,
    Checkpoint,
    Invocation,
    InvocationLog,
    check_no_steps_kept,
    close_dead,
    incomplete_checkpoints,
    invocations,
    last_checkpoint,
    read_run_file,
    totals,
    write_run_file,
)


def dead_pid() -> int:
    """The pid of a process that has ended."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def checkpoint(folder: Path, step: int, tokens: int, max_steps: int = 6) -> Path:
    path = folder / f"checkpoint-{step}"
    path.mkdir(parents=True)
    state = {"global_step": step, "max_steps": max_steps, "num_input_tokens_seen": tokens}
    (path / "trainer_state.json").write_text(json.dumps(state))
    return path


def test_a_failed_rename_leaves_the_previous_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / RUN_FILE
    write_json(path, {"run_id": "old"})

    def crash(source: object, target: object) -> None:
        raise OSError("killed between the write and the rename")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="killed"):
        write_json(path, {"run_id": "new"})
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"run_id": "old"}
    assert staging(path).exists()  # the half-done write, beside the file
    assert remove_stale(tmp_path) == [staging(path)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [RUN_FILE]


def test_a_kill_between_the_folder_renames_keeps_the_old_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "adapter"
    target.mkdir()
    (target / "weights").write_text("old")
    new = staging(target)
    new.mkdir()
    (new / "weights").write_text("new")
    real_rename = os.rename

    def second_rename_dies(source: str | Path, destination: str | Path) -> None:
        if Path(source) == new:
            raise OSError("killed")
        real_rename(source, destination)

    monkeypatch.setattr(os, "rename", second_rename_dies)
    with pytest.raises(OSError, match="killed"):
        replace_folder(new, target)
    monkeypatch.undo()
    assert not target.exists()  # the moment a kill would find: the old one stepped aside
    restored = remove_stale(tmp_path)
    assert len(restored) == 2  # the old folder put back, the new one removed
    assert (target / "weights").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["adapter"]


def test_a_replaced_folder_is_the_new_one_and_nothing_is_left_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "merged"
    for text in ("first", "second"):
        written = staging(target)
        written.mkdir()
        (written / "weights").write_text(text)
        replace_folder(written, target)
    assert (target / "weights").read_text() == "second"
    assert [p.name for p in tmp_path.iterdir()] == ["merged"]


def test_leftovers_of_live_processes_are_not_touched(tmp_path: Path) -> None:
    busy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        theirs = tmp_path / f"adapter.tmp-{busy.pid}"
        theirs.mkdir()
        gone = tmp_path / f"adapter.tmp-{dead_pid()}"
        gone.mkdir()
        assert remove_stale(tmp_path) == [gone]
        assert theirs.is_dir()
    finally:
        busy.kill()
        busy.wait()


def test_an_incomplete_checkpoint_is_never_resumed_from(tmp_path: Path) -> None:
    checkpoint(tmp_path, 2, 500)
    checkpoint(tmp_path, 4, 1000)
    cut = tmp_path / "checkpoint-6"
    cut.mkdir()
    (cut / "trainer_state.json").write_text('{"global_step": 6, "max_')  # a kill mid-write
    found = last_checkpoint(tmp_path)
    assert found is not None and (found.step, found.tokens_seen) == (4, 1000)
    assert incomplete_checkpoints(tmp_path) == [cut]
    assert last_checkpoint(tmp_path / "none") is None


def test_a_killed_invocation_ends_at_the_checkpoint_resumed_from(tmp_path: Path) -> None:
    # The first invocation recorded checkpoint 2 (500 tokens), was interrupted; the second
    # was SIGKILLed after saving checkpoint 4 but before recording it.
    first = Invocation(
        pid=dead_pid(), started="t0", ended="t1", from_step=0, to_step=2, train_tokens=500,
        wall_s=10.0, ended_as="interrupted",
    )  # fmt: skip
    second = Invocation(
        pid=dead_pid(), started="t2", from_step=2, to_step=2, train_tokens=0, wall_s=1.0
    )
    resumed_from = Checkpoint(path=tmp_path, step=4, max_steps=6, tokens_seen=1100)
    closed = close_dead([first, second], resumed_from)
    assert closed[0] == first
    assert closed[1].ended_as == "killed"
    assert (closed[1].from_step, closed[1].to_step, closed[1].train_tokens) == (2, 4, 600)
    assert totals(closed) == {"train_tokens": 1100, "wall_s": 11.0, "tokens_per_s": 100.0}


def test_the_invocation_log_keeps_the_run_file_current(tmp_path: Path) -> None:
    write_run_file(tmp_path, {"run_id": "r", "config": {}, "store": "s.sqlite"})
    start = Checkpoint(path=tmp_path, step=2, max_steps=6, tokens_seen=500)
    log = InvocationLog(tmp_path, [], start)
    [entry] = invocations(read_run_file(tmp_path))
    assert (entry.from_step, entry.to_step, entry.ended_as) == (2, 2, "running")
    log.start_clock()
    log.checkpoint(4, 900)
    [entry] = invocations(read_run_file(tmp_path))
    assert (entry.to_step, entry.train_tokens, entry.pid) == (4, 400, os.getpid())
    log.end("interrupted")  # without a step: what its last checkpoint kept
    log.write({"extra": 1})
    content = read_run_file(tmp_path)
    [entry] = invocations(content)
    assert (entry.to_step, entry.train_tokens, entry.ended_as) == (4, 400, "interrupted")
    assert content["extra"] == 1 and content["run_id"] == "r"


def test_totals_of_no_time_are_zero() -> None:
    assert totals([]) == {"train_tokens": 0, "wall_s": 0.0, "tokens_per_s": 0.0}


def test_without_a_checkpoint_a_killed_invocation_ends_where_it_recorded(tmp_path: Path) -> None:
    # Killed before its first checkpoint: the run trains again from step 0, nothing was kept.
    killed = Invocation(pid=dead_pid(), started="t0", from_step=0, to_step=0)
    [closed] = close_dead([killed], None)
    assert closed.ended_as == "killed" and (closed.to_step, closed.train_tokens) == (0, 0)
    check_no_steps_kept("r", tmp_path, [closed])


def test_steps_kept_without_their_checkpoint_are_not_trained_again(tmp_path: Path) -> None:
    kept = Invocation(
        pid=dead_pid(), started="t0", ended="t1", from_step=0, to_step=4, train_tokens=900,
        ended_as="interrupted",
    )  # fmt: skip
    with pytest.raises(ConfigError, match="its invocations kept 4 steps, but no complete"):
        check_no_steps_kept("r", tmp_path, close_dead([kept], None))
