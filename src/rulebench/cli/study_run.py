"""Running a study (several stored runs in one command) with a bar per run and clean Ctrl-C."""

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

if TYPE_CHECKING:
    from rulebench.engine.runner import ProgressReporter
    from rulebench.engine.store.database import Store

ResultT = TypeVar("ResultT")
Reporters = Callable[[str], "ProgressReporter | None"]


def run_study_command(
    study: "Callable[[Store, Reporters], Coroutine[Any, Any, ResultT]]",
    store: Path | None,
    show_progress: bool,
) -> ResultT:
    """Run `study(store, reporters)` to its end; Ctrl-C exits with a line saying how to go on.

    Every run of a study is an ordinary cached run, so the same command resumes it.
    """
    from rulebench.cli.interrupts import same_command, say_interrupted
    from rulebench.cli.progress import RichProgress
    from rulebench.engine.interrupts import Interrupts
    from rulebench.engine.store.database import Store

    def reporter(title: str) -> RichProgress:
        return RichProgress(title, enabled=show_progress)

    interrupts = Interrupts()
    with Store(store) as db, interrupts:
        try:
            return asyncio.run(interrupts.run(study(db, reporter)))
        except (KeyboardInterrupt, asyncio.CancelledError):
            kept = (
                "Finished items are stored and cached: the same command goes on where it stopped."
            )
            say_interrupted(interrupts, kept, same_command())
            raise typer.Exit(interrupts.exit_code) from None
