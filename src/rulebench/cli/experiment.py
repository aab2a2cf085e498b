"""`rulebench experiment FILE`: every model of an experiment file on every task, as one batch."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.study.batch import PlannedRun


def experiment(
    file: Annotated[
        Path,
        typer.Argument(
            help=r"Experiment file (.toml, .yaml or .yml): \[experiment], \[defaults], "
            r"\[\[models]] and \[\[tasks]] tables (docs/guides/experiments.md).",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Folder for the table (summary.md, batch.json) and the comparison reports. "
            "Default: the file's `output`, else a folder named for the experiment in "
            "rulebench-experiment/.",
            show_default=False,
        ),
    ] = None,
    store: opt.StoreOption = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="List the runs and what would happen to each; run nothing. Exits 1 when a "
            "run cannot start.",
        ),
    ] = False,
    as_json: opt.JsonOption = False,
    fail_on_error: opt.FailOnErrorOption = 0.0,
) -> None:
    """Run every model of an experiment file on every task: one batch, resumable as a whole.

    Running the same file again skips completed runs, resumes stopped ones and
    starts missing ones. A model that fails (an unknown spec, a server that is
    down) is reported and the others go on; the exit status is 1 until every run
    completed. The table of models x tasks (headline score, n, errors, run ids)
    ends the output; each task run on two models or more also gets its comparison
    report (`rulebench report RUN ...`) in the output folder.
    """
    from rulebench.cli.batch_run import DEFAULT_OUTPUT, BatchCommand, run_batch_command
    from rulebench.study.batch_report import folder_name
    from rulebench.study.experiment import load_experiment

    loaded = load_experiment(file, store)
    folder = output or loaded.output or DEFAULT_OUTPUT / folder_name(loaded.name)
    models = len(dict.fromkeys(run.model for run in loaded.runs))
    tasks = len(dict.fromkeys(run.task for run in loaded.runs))
    err.print(
        safe_text(
            f"experiment {loaded.name}: {models} model(s) x {tasks} task(s) = "
            f"{len(loaded.runs)} runs; store {loaded.store or 'default'}; output {folder}"
        ),
        highlight=False,
    )
    if dry_run:
        blocked = _show_plan(loaded.runs, loaded.store)
        if blocked:
            err.print(f"{blocked} of {len(loaded.runs)} runs cannot start", highlight=False)
            raise typer.Exit(1)  # as running the file would: a script can check the plan
        return
    command = BatchCommand(
        loaded.store, folder, f"experiment {loaded.name}", as_json, fail_on_error
    )
    run_batch_command(loaded.runs, command)


def _show_plan(planned: list["PlannedRun"], store: Path | None) -> int:
    """One line per run: what running the file now would do with it; the count that cannot start."""
    from rulebench.engine.store import Store, default_store_path
    from rulebench.study.batch import How, preview

    path = store or default_store_path()
    actions: list[tuple[How, str | None]]
    if path.exists():
        with Store(path, readonly=True) as db:
            actions = preview(planned, db)
    else:
        actions = [("new" if run.spec else "not started", None) for run in planned]
    said = {"reused": "completed earlier, not run again", "resumed": "resume", "new": "start"}
    for number, (run, (how, run_id)) in enumerate(zip(planned, actions, strict=True), start=1):
        what = said.get(how) or f"cannot start: {run.problem}"
        out.print(
            safe_text(
                f"{number}. {run.model} on {run.task}: {what}"
                + (f" (run {run_id})" if run_id else "")
            ),
            highlight=False,
            soft_wrap=True,
        )
    return sum(how == "not started" for how, _ in actions)


def register(app: typer.Typer) -> None:
    """Add the command to the main app."""
    app.command("experiment")(experiment)
