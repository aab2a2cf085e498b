"""Tiny `train irft` runs for the tuning tests: their config and a recorder of their progress."""

import hashlib
from pathlib import Path
from typing import Any

from rulebench.train.irft_config import IrftConfig

TINY_LAYERS = 4
"""Transformer blocks of the `tiny_model` fixture (tests/train/conftest.py)."""
TINY = {"max_steps": 3, "batch_size": 2, "eval_size": 2, "save_steps": 2, "max_length": 448}
"""Three steps of batch 2, a checkpoint at step 2, eval loss on two test examples."""


def tiny_config(data: Path, output: Path, model: Path | None = None, **changes: Any) -> IrftConfig:
    """A tiny run on `model` (a transformers folder; default: the embedded model)."""
    spec = {} if model is None else {"model": f"hf/{model}"}
    return IrftConfig(data=data, output=output, **(TINY | spec | changes))


class Recorder:
    """Records what the trainer reports; can stop the run at a step as `stop_with` does."""

    def __init__(
        self, stop_at: int | None = None, stop_with: type[BaseException] = KeyboardInterrupt
    ) -> None:
        self.stop_at = stop_at
        self.stop_with = stop_with
        self.begun: list[tuple[int, int]] = []
        self.steps: list[int] = []
        self.restarted: list[str] = []

    def begin(self, total_steps: int, done_steps: int) -> None:
        self.begun.append((total_steps, done_steps))

    def update(self, step: int, loss: float | None) -> None:
        self.steps.append(step)
        if step == self.stop_at:
            raise self.stop_with

    def restart(self, run_id: str) -> None:
        self.restarted.append(run_id)


class Killed(BaseException):
    """Ends a run in-process as SIGKILL would: nothing of run_irft's handles it (not an
    Exception, not a KeyboardInterrupt), so the run file and the store row stay "running"."""


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under `folder`: its content hash and modification time."""
    return {
        str(path.relative_to(folder)): (
            hashlib.sha256(path.read_bytes()).hexdigest(),
            path.stat().st_mtime_ns,
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
