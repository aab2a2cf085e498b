"""Running a spec from the command line: build it, show progress, print the results."""

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err
from rulebench.cli.run_terms import describe_spec, is_tolerated, option_name
from rulebench.engine.interrupts import Interrupts
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from pydantic import BaseModel

    from rulebench.engine.runner import RunSpec
    from rulebench.engine.task_config import TaskConfig

ConfigT = TypeVar("ConfigT", bound="BaseModel")


def build_spec(task: str, config: "TaskConfig", run: opt.RunOptions) -> "RunSpec":
    """The storable description of a run: a task's typed config plus the shared options.

    An out-of-range value is a ConfigError naming the option.
    """
    from rulebench.engine.run_specs import make_spec

    return make_spec(task, run.model, config, run.settings(), option_name)


def run_task(task: str, config: "TaskConfig", run: opt.RunOptions) -> None:
    """Build the spec, run it with progress and print its summary (a new run).

    Several models (or --output) make a batch instead: one run per model, resumable as a
    whole by the same command, with a comparison at the end.
    """
    if run.is_batch:
        from rulebench.cli.batch_run import run_models

        run_models(task, config, run)
        return
    execute(build_spec(task, config, run), run.store, None, run.as_json, run.fail_on_error)


def typed_config(config_type: "type[ConfigT]", **fields: object) -> "ConfigT":
    """A task's config model from parsed options; a bad value is one line naming the option."""
    from rulebench.core.validation import validate_labelled

    return validate_labelled(config_type, fields, option_name)


def resume_run(
    run_id: str,
    store_path: Path | None,
    overrides: dict[str, object],
    as_json: bool,
    fail_on_error: float = 0.0,
) -> None:
    """Finish a stored run with the configuration it was started with.

    `overrides` (concurrency, base_url) replace stored settings where given (not None).
    """
    from rulebench.cli.resume_commands import resume_command_of
    from rulebench.core.errors import StoreError
    from rulebench.engine.resume_spec import spec_to_resume
    from rulebench.engine.run_specs import NotAnEvaluation
    from rulebench.engine.store.location import default_store_path

    try:
        spec, full_id = spec_to_resume(store_path or default_store_path(), run_id, overrides)
    except NotAnEvaluation as exc:
        raise StoreError(
            f"run {exc.run_id} is a {exc.task} run, not an evaluation: resume it with "
            f"`{resume_command_of(exc.task, exc.run_id)}`"
        ) from None
    execute(spec, store_path, full_id, as_json, fail_on_error)


def execute(
    spec: "RunSpec",
    store_path: Path | None,
    resume_id: str | None,
    as_json: bool,
    fail_on_error: float = 0.0,
) -> None:
    """Run with a progress bar, then print the summary; Ctrl-C leaves a resumable run.

    Exits 1 unless the run completed, or failed only by item errors within `fail_on_error`
    (the fraction of items tolerated, as --fail-on-error).
    """
    from rulebench.cli.progress import RichProgress
    from rulebench.cli.render import print_run_summary
    from rulebench.engine.catalog import task_entry
    from rulebench.engine.evaluation import evaluate
    from rulebench.engine.store.database import Store

    entry = task_entry(spec.task)
    err.print(describe_spec(spec), highlight=False)
    with Store(store_path) as store:
        progress = RichProgress(spec.task, enabled=not as_json)
        interrupts = Interrupts()
        try:
            with interrupts:
                report = asyncio.run(interrupts.run(evaluate(spec, store, progress, resume_id)))
        except (KeyboardInterrupt, asyncio.CancelledError):
            report_interrupt(interrupts, progress.run_id or resume_id, store_path)
            raise typer.Exit(interrupts.exit_code) from None
        print_run_summary(store, report, entry.group_by, as_json)
        if report.run.status != "completed":
            exit_on_errors(store.count_results(report.run.id), fail_on_error, report.run.status)


def exit_on_errors(counts: dict[str, int], fail_on_error: float, status: str) -> None:
    """Exit 1 for a run that did not complete, unless only few enough items ended in an error.

    The stored status stays what it is; saying so keeps exit 0 from reading as success.
    """
    errors, finished = counts["error"], counts["ok"] + counts["error"]
    # Only item errors are tolerated: a run failed with no error result is missing results.
    if not is_tolerated(errors, finished, fail_on_error):
        raise typer.Exit(1)
    err.print(
        f"[yellow]{errors} of {finished} items ({errors / finished:.1%}) ended in an error, "
        f"within --fail-on-error {fail_on_error:g}:[/yellow] exit status 0; the run is stored "
        f"as {status}.",
        highlight=False,
    )


def report_interrupt(interrupts: Interrupts, run_id: str | None, store_path: Path | None) -> None:
    """Say what a signal left behind and how to go on."""
    how = "Interrupted" if interrupts.signal_name != "SIGTERM" else "Terminated (SIGTERM)"
    if run_id is None:
        err.print(f"[yellow]{how}[/yellow] before the run started: nothing was stored.")
        return
    resume = opt.resume_command(run_id, store_path)
    if interrupts.count > 1:
        err.print(
            f"[yellow]{how} twice:[/yellow] stopped at once; results of the last moments may not "
            "be stored. Resume with: ",
            end="",
        )
    else:
        err.print(f"[yellow]{how}.[/yellow] Finished items are stored; resume with: ", end="")
    err.print(safe_text(resume), highlight=False)
