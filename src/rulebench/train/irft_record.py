"""The run file of a `train irft` output folder and the invocations it lists.

A tuning run may take several processes (interrupted, killed, resumed). Each one appends an
invocation when it starts and updates it at every checkpoint it saves, so even a SIGKILLed
process leaves the steps and tokens it made durable; the next resume marks it "killed" and
ties its end to the checkpoint it resumes from. The run's totals are the sums over its
invocations. The run file gains its `notes` (what the store row's notes hold) only when the
run has finished: with them the run is done, and a resume changes nothing.
"""

import json
import os
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from rulebench.core.errors import ConfigError
from rulebench.engine.store.records import utc_now
from rulebench.engine.store.run_liveness import is_process_alive
from rulebench.train.atomic_write import write_json

RUN_FILE = "irft-run.json"
TRAINER_STATE = "trainer_state.json"

EndedAs = Literal["running", "completed", "interrupted", "failed", "killed"]


class Invocation(BaseModel):
    """One process's share of a tuning run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pid: int
    started: str
    ended: str | None = None
    """UTC time it ended; for a killed one, the last checkpoint it recorded."""
    from_step: int
    to_step: int
    """The last step it kept: its final step, or the last checkpoint it saved."""
    train_tokens: int = 0
    """Non-padding tokens of its kept steps (work lost to a kill is trained again later)."""
    wall_s: float = 0.0
    """Training time up to `to_step` (evaluation and saving excluded)."""
    ended_as: EndedAs = "running"


class Checkpoint(BaseModel):
    """The trainer state of a complete checkpoint folder: where training stood."""

    model_config = ConfigDict(frozen=True)

    path: Path
    step: int
    max_steps: int
    tokens_seen: int


def read_run_file(folder: Path) -> dict[str, Any]:
    """The run file of a `train irft` output folder: run id, config, store (and data hash).

    Raises:
        ConfigError: the file is unreadable or not a run file.
    """
    path = folder / RUN_FILE
    try:
        content = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: unreadable run file: {exc}") from None
    if not isinstance(content, dict) or not {"run_id", "config", "store"} <= content.keys():
        raise ConfigError(f"{path}: not an IRFT run file (run_id, config, store)")
    return content


def write_run_file(folder: Path, content: dict[str, Any]) -> None:
    """Replace the run file whole (a kill leaves the old one or the new one).

    Raises:
        ConfigError: the folder cannot be written.
    """
    try:
        write_json(folder / RUN_FILE, content)
    except OSError as exc:
        raise ConfigError(f"cannot write {folder / RUN_FILE}: {exc.strerror}") from None


def update_run_file(folder: Path, changes: dict[str, Any]) -> None:
    """Write the run file with `changes` over what it holds."""
    write_run_file(folder, read_run_file(folder) | changes)


def invocations(content: dict[str, Any]) -> list[Invocation]:
    """The invocations a run file lists (none in one written before they were recorded).

    Raises:
        ConfigError: an entry that is not an invocation.
    """
    try:
        return [Invocation.model_validate(entry) for entry in content.get("invocations", [])]
    except ValidationError as exc:
        raise ConfigError(f"{RUN_FILE}: invocations: {exc.errors()[0]['msg']}") from None


def close_dead(listed: list[Invocation], resumed_from: Checkpoint | None) -> list[Invocation]:
    """Mark invocations whose process died while "running" as killed, ending where it saved.

    A killed invocation's last checkpoint may be newer than its last update of the run file
    (the kill fell between the two), so its end is taken from the checkpoint resumed from.
    Without one (a run that starts again from step 0) it ends where it last recorded.
    """
    closed: list[Invocation] = []
    for entry in listed:
        # This process starts a new invocation: a "running" one of its own pid is stale.
        if entry.ended_as == "running" and (
            entry.pid == os.getpid() or not is_process_alive(entry.pid)
        ):
            tokens_before = sum(done.train_tokens for done in closed)
            update: dict[str, Any] = {"ended_as": "killed"}
            if resumed_from is not None and resumed_from.step >= entry.to_step:
                update |= {
                    "to_step": resumed_from.step,
                    "train_tokens": max(0, resumed_from.tokens_seen - tokens_before),
                }
            entry = entry.model_copy(update=update)
        closed.append(entry)
    return closed


def check_no_steps_kept(run_id: str, folder: Path, earlier: list[Invocation]) -> None:
    """Let a run without a checkpoint train again from step 0 only if no invocation kept steps.

    Steps are kept only by a checkpoint, so kept steps without one mean its checkpoints were
    removed: training again would count those steps twice.

    Raises:
        ConfigError: an earlier invocation kept steps.
    """
    kept = max((entry.to_step for entry in earlier), default=0)
    if kept:
        raise ConfigError(
            f"run {run_id} in {folder}: its invocations kept {kept} steps, but no complete "
            f"checkpoint is left in {folder / 'checkpoints'}: start it again in a new folder"
        )


class InvocationLog:
    """This process's invocation in the run file, kept current at each checkpoint it saves."""

    def __init__(self, folder: Path, earlier: list[Invocation], start: Checkpoint | None) -> None:
        self.folder = folder
        self.earlier = earlier
        self._tokens_before = start.tokens_seen if start else 0
        step = start.step if start else 0
        self.current = Invocation(pid=os.getpid(), started=utc_now(), from_step=step, to_step=step)
        self._clock: float | None = None
        self.write()

    def start_clock(self) -> None:
        """Training starts now: wall_s counts from here."""
        self._clock = time.monotonic()

    def checkpoint(self, step: int, tokens_seen: int) -> None:
        """A checkpoint of `step` is saved: the steps up to it are kept whatever happens next."""
        self._advance(step, tokens_seen)
        self.write()

    def end(self, ended_as: EndedAs, step: int | None = None, tokens_seen: int = 0) -> None:
        """Close this invocation (without `step`, it keeps what its last checkpoint kept)."""
        if step is not None:
            self._advance(step, tokens_seen)
        self.current = self.current.model_copy(update={"ended_as": ended_as, "ended": utc_now()})

    def listed(self) -> list[Invocation]:
        """Every invocation of the run, this one last."""
        return [*self.earlier, self.current]

    def write(self, extra: dict[str, Any] | None = None) -> None:
        """Replace the run file with the invocations (and `extra`) in it."""
        entries = [entry.model_dump(mode="json") for entry in self.listed()]
        update_run_file(self.folder, {"invocations": entries} | (extra or {}))

    def _advance(self, step: int, tokens_seen: int) -> None:
        wall_s = 0.0 if self._clock is None else time.monotonic() - self._clock
        self.current = self.current.model_copy(
            update={
                "to_step": step,
                "train_tokens": tokens_seen - self._tokens_before,
                "wall_s": round(wall_s, 2),
                "ended": utc_now(),
            }
        )


def totals(listed: list[Invocation]) -> dict[str, float | int]:
    """train_tokens, wall_s and tokens_per_s over every invocation of a run."""
    tokens = sum(entry.train_tokens for entry in listed)
    wall_s = round(sum(entry.wall_s for entry in listed), 2)
    return {
        "train_tokens": tokens,
        "wall_s": wall_s,
        "tokens_per_s": round(tokens / wall_s, 2) if wall_s > 0 else 0.0,
    }


def last_checkpoint(folder: Path) -> Checkpoint | None:
    """The newest complete checkpoint in `folder`, if any."""
    return max(complete_checkpoints(folder), key=lambda checkpoint: checkpoint.step, default=None)


def complete_checkpoints(folder: Path) -> list[Checkpoint]:
    """The checkpoints in `folder` whose trainer state (written last) is readable."""
    found = (read_checkpoint(path) for path in sorted(folder.glob("checkpoint-*")))
    return [checkpoint for checkpoint in found if checkpoint is not None]


def incomplete_checkpoints(folder: Path) -> list[Path]:
    """Checkpoint folders a kill left without a readable trainer state."""
    return [path for path in sorted(folder.glob("checkpoint-*")) if read_checkpoint(path) is None]


def read_checkpoint(path: Path) -> Checkpoint | None:
    """The checkpoint in `path` when it is complete, else None."""
    try:
        state = json.loads((path / TRAINER_STATE).read_text())
        return Checkpoint(
            path=path,
            step=int(state["global_step"]),
            max_steps=int(state["max_steps"]),
            tokens_seen=int(state.get("num_input_tokens_seen") or 0),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None  # cut short by a kill: not a checkpoint to resume from
