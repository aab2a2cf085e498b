"""A rich progress bar for the runner: done/total, rate, ETA and error count, on stderr."""

import time

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from rulebench.cli.console import err
from rulebench.report.untrusted import escape_markup, safe_text

# Updating rich per item takes a lock and costs time; at thousands of items/s that adds up, so
# advances are counted here and pushed to the bar at most ten times a second.
_PUSH_EVERY_S = 0.1


class ThroughputColumn(ProgressColumn):
    """Items per second over rich's recent-speed window."""

    def render(self, task: Task) -> Text:
        """Render the rate, blank until there is one."""
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f} it/s" if speed else "", style="cyan")


class ErrorsColumn(ProgressColumn):
    """Errors so far, red when there are any."""

    def render(self, task: Task) -> Text:
        """Render the error count."""
        errors = int(task.fields.get("errors", 0))
        return Text(f"{errors} errors", style="red" if errors else "dim")


class RichProgress:
    """Meets the runner's ProgressReporter protocol."""

    def __init__(self, description: str, enabled: bool = True) -> None:
        self._description = description
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            ThroughputColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            ErrorsColumn(),
            console=err,
            disable=not enabled,
        )
        # The description is drawn by a markup column ("[bold]{task.description}").
        self._task_id = self._progress.add_task(
            escape_markup(description), total=None, errors=0, start=False
        )
        self._pending = self._errors = 0
        self._last_push = 0.0
        self.run_id: str | None = None

    def start(self, run_id: str, total: int | None, already_done: int) -> None:
        """Show the bar, counting items finished by an earlier invocation as done."""
        self.run_id = run_id
        err.print(safe_text(f"run {run_id}"))
        self._progress.update(self._task_id, total=total, completed=already_done)
        self._progress.start_task(self._task_id)
        self._progress.start()

    def advance(self, failed: bool) -> None:
        """Count one finished item."""
        self._pending += 1
        self._errors += failed
        now = time.monotonic()
        if now - self._last_push >= _PUSH_EVERY_S:
            self._push(now)

    def finish(self) -> None:
        """Push the last counts and stop drawing."""
        self._push(time.monotonic())
        self._progress.stop()

    def _push(self, now: float) -> None:
        self._progress.update(self._task_id, advance=self._pending, errors=self._errors)
        self._pending, self._last_push = 0, now


class StepBar:
    """Steps of a training or a search on stderr: loss, time left, and a note (a suffix)."""

    def __init__(self) -> None:
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]}"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=err,
        )
        self._task = self._progress.add_task("loading", total=None, loss="-", note="")

    def __enter__(self) -> "StepBar":
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def start_steps(self, description: str, total: int, done: int) -> None:
        """The steps begin (a resumed run part-way)."""
        self._progress.reset(self._task, total=total, completed=done)
        self._progress.update(self._task, description=escape_markup(description))

    def show(self, step: int, loss: float | None, note: str = "") -> None:
        """Move to `step`, showing its loss and the note (plain text, never markup)."""
        shown = f"{loss:.4f}" if loss is not None else "-"
        self._progress.update(self._task, completed=step, loss=shown, note=escape_markup(note))
