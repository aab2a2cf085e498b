"""Training that stops at a step boundary when asked (SIGTERM, Ctrl-C), leaving a checkpoint.

The trainer is told to save and stop after the step under way, so a resume goes on from the
step the stop was asked at; the stop then surfaces as `Stopped` (a KeyboardInterrupt), and the
run is recorded "interrupted" as a Ctrl-C would leave it.
"""

from pathlib import Path
from typing import Any

from rulebench.core.stop import raise_if_stop_requested, stop_requested, watching_stop


def stop_callback() -> Any:
    """A transformers TrainerCallback: save and stop after the step in flight once asked to."""
    from transformers import TrainerCallback

    class _StopAtStep(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if stop_requested():
                control.should_save = True
                control.should_training_stop = True

    return _StopAtStep()


def train_until_stopped(trainer: Any, checkpoint: Path | None) -> None:
    """`trainer.train()` (from `checkpoint` if given), ending at a step boundary when asked.

    Raises:
        Stopped: a stop was requested; the checkpoint of the last finished step is saved.
    """
    trainer.add_callback(stop_callback())
    with watching_stop():
        trainer.train(resume_from_checkpoint=None if checkpoint is None else str(checkpoint))
        raise_if_stop_requested()
