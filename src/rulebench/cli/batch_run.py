"""Running a batch from the command line (`run ... -m A -m B`, `rulebench experiment`).

Each run gets a line ("run k of n: model on task") and its progress bar; at the end, the
models x tasks table (or JSON), the comparison reports on disk, and exit status 1 when a run
did not complete. Ctrl-C stops the run in progress cleanly and prints the command that goes
on: the same one.
"""

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.interrupts import same_command
from rulebench.report.untrusted import escape_markup, safe_text

if TYPE_CHECKING:
    from rich.table import Table

    from rulebench.engine.runner import ProgressReporter
    from rulebench.engine.task_config import TaskConfig
    from rulebench.study.batch import BatchResult, BatchRow, How, PlannedRun
    from rulebench.study.batch_report import Written


class BatchCommand(NamedTuple):
    """Where a batch goes and how its end is shown."""

    store: Path | None
    output: Path
    """Folder for summary.md, batch.json and the comparison reports."""
    title: str
    as_json: bool = False
    fail_on_error: float = 0.0


def run_models(task: str, config: "TaskConfig", run: opt.RunOptions) -> None:
    """One task on every -m model, as a batch; the default output folder names its id."""
    from rulebench.cli.run_terms import option_name
    from rulebench.study.model_batch import plan_model_batch

    batch = plan_model_batch(task, config, run.models, run.settings(), option_name)
    output = run.output or batch.default_output
    command = BatchCommand(run.store, output, batch.title, run.as_json, run.fail_on_error)
    run_batch_command(batch.planned, command)


def run_batch_command(planned: "list[PlannedRun]", command: BatchCommand) -> None:
    """Run the batch, write its comparison, show the table; exit 1 if a run did not complete."""
    from rulebench.cli.pricing import env_price_table
    from rulebench.engine.interrupts import Interrupts
    from rulebench.engine.store.database import Store
    from rulebench.study.batch import run_batch
    from rulebench.study.batch_report import with_costs, write_outputs

    interrupts = Interrupts()
    with Store(command.store) as store:
        try:
            with interrupts:
                batch = run_batch(planned, store, _Watcher(not command.as_json))
                result = with_costs(asyncio.run(interrupts.run(batch)), env_price_table())
        except (KeyboardInterrupt, asyncio.CancelledError):
            how = "Interrupted" if interrupts.signal_name != "SIGTERM" else "Terminated (SIGTERM)"
            err.print(
                f"[yellow]{how}.[/yellow] Finished items are stored; the same command resumes "
                "the batch (completed runs are not run again):"
            )
            err.print(safe_text(f"  {same_command()}"), highlight=False)
            raise typer.Exit(interrupts.exit_code) from None
        written = write_outputs(result, store, command.output, command.title)
    show_result(result, written, command)
    failed = [row for row in result.incomplete() if not _tolerated(row, command.fail_on_error)]
    if failed:
        _say_incomplete(failed, len(result.rows), command.store)
        raise typer.Exit(1)


class _Watcher:
    """Draws the batch: a line per run, then the run's own progress bar."""

    def __init__(self, show_bars: bool) -> None:
        self.show_bars = show_bars

    def begin(
        self, number: int, total: int, planned: "PlannedRun", how: "How"
    ) -> "ProgressReporter":
        from rulebench.cli.progress import RichProgress
        from rulebench.cli.run_terms import describe_spec
        from rulebench.engine.runner import NoProgress
        from rulebench.study.batch_notes import run_heading

        count, named = run_heading(number, total, planned, how)
        err.print(f"[bold]{count}[/bold] {escape_markup(named)}", highlight=False)
        if planned.spec is None or how in ("reused", "not started"):
            return NoProgress()
        err.print(describe_spec(planned.spec), highlight=False)
        return RichProgress(f"{planned.task} on {planned.model}", enabled=self.show_bars)

    def end(self, row: "BatchRow") -> None:
        from rulebench.study.batch_notes import run_ending

        line = run_ending(row)
        if line is not None:
            err.print(safe_text(f"  {line}", style="" if row.status == "completed" else "red"))


def show_result(result: "BatchResult", written: "Written", command: BatchCommand) -> None:
    """The table (or JSON) on stdout; where the files went and any report problem on stderr."""
    import json

    from rulebench.study.batch_report import batch_json

    for problem in written.problems:
        err.print(safe_text(f"warning: {problem}", style="yellow"), highlight=False)
    if command.as_json:
        payload = batch_json(result) | {
            "output": str(command.output),
            "written": [str(path) for path in written.paths],
        }
        out.print_json(json.dumps(payload), ensure_ascii=True)
        return
    out.print(safe_text(f"{command.title} (batch {result.batch_id})", style="bold"))
    for task in dict.fromkeys(row.task for row in result.rows):
        out.print(task_table(task, [row for row in result.rows if row.task == task]))
    shown = ", ".join(str(path) for path in written.paths)
    err.print(safe_text(f"written: {shown}"), highlight=False)


def task_table(task: str, rows: "list[BatchRow]") -> "Table":
    """One task's runs, a row per model, as rich draws it (the measures are the study's).

    The first column holds the model with its run id, tokens and cost (and status, unless
    completed) below: so at 80 columns only the model spec and the rates wrap, never a run id
    or a count.
    """
    from rich.table import Table
    from rich.text import Text

    from rulebench.study.batch_report import cost_cell, table_columns, tokens_cell

    table = Table(title=safe_text(task, style="table.title"), title_justify="left", show_lines=True)
    table.add_column("model / run", overflow="fold", min_width=max(map(len, _ids(rows))))
    measures = [column for column in table_columns(rows) if column.is_measure]
    for column in measures:
        cells = [column.cell(row) for row in rows]
        # A cell wraps only at a space (a rate before its interval), never inside a number.
        words = [len(word) for text in (column.header, *cells) for word in text.split()]
        table.add_column(column.header, justify="right", min_width=max(words, default=1))
    for row in rows:
        first = safe_text(row.model)
        if row.run_id is not None:
            first.append_text(Text.assemble("\n", safe_text(row.run_id, style="dim")))
            cost = "" if cost_cell(row) == "-" else f", {cost_cell(row)}"
            first.append(f"\ntokens {tokens_cell(row)}{cost}", style="dim")
        if row.status != "completed":
            first.append(f"\n{row.status}")
        style = "" if row.status == "completed" else "red"
        table.add_row(first, *(safe_text(column.cell(row)) for column in measures), style=style)
    return table


def _ids(rows: "list[BatchRow]") -> list[str]:
    return [row.run_id or row.status for row in rows]


def _tolerated(row: "BatchRow", fail_on_error: float) -> bool:
    """Whether a run that did not complete is still fine for --fail-on-error."""
    from rulebench.cli.run_terms import is_tolerated
    from rulebench.engine.run_errors import is_error_tally

    if row.status != "failed" or row.summary is None:
        return False
    if row.problem is not None and not is_error_tally(row.problem):
        return False
    return is_tolerated(row.summary.errors, row.summary.items, fail_on_error)


def _say_incomplete(failed: "list[BatchRow]", total: int, store: Path | None) -> None:
    from rulebench.study.batch_notes import RERUN_ADVICE, incomplete_lines

    err.print(f"[red]{len(failed)} of {total} runs did not complete:[/red]")
    for line in incomplete_lines(failed):
        err.print(safe_text(f"  {line}"), highlight=False)
    err.print(RERUN_ADVICE)
    err.print(safe_text(f"  {same_command()}"), highlight=False)
    alone = [opt.resume_command(row.run_id, store) for row in failed if row.run_id]
    if alone:
        err.print("or one stored run at a time:")
        for command in alone:
            err.print(safe_text(f"  {command}"), highlight=False)
