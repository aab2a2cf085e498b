"""`rulebench experiment FILE`: every model of an experiment file on every task, as one batch."""

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.option_stack import with_options
from rulebench.cli.study_options import (
    STUDY_DEFAULTS,
    StudyOptions,
    output_option,
    study_options,
)
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.core.shards import Shard
    from rulebench.study.batch import PlannedRun


OUTPUT_HELP = (
    "Folder for the table (summary.md, batch.json) and the comparison reports. Default: the "
    "file's `output`, else a folder named for the experiment in rulebench-experiment/."
)


@with_options(study=study_options(output_option(OUTPUT_HELP, False)))
def experiment(
    file: Annotated[
        Path,
        typer.Argument(
            help=r"Experiment file (.toml, .yaml or .yml): \[experiment], \[defaults], "
            r"\[\[models]] and \[\[tasks]] tables (docs/guides/experiments.md).",
            show_default=False,
        ),
    ],
    study: StudyOptions = STUDY_DEFAULTS,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="List the runs and what would happen to each; run nothing. Exits 1 when a "
            "run cannot start.",
        ),
    ] = False,
    fail_on_error: opt.FailOnErrorOption = 0.0,
    shard: opt.ShardOption = None,
) -> None:
    """Run every model of an experiment file on every task: one batch, resumable as a whole.

    Running the same file again skips completed runs, resumes stopped ones and
    starts missing ones. A model that fails (an unknown spec, a server that is
    down) is reported and the others go on; the exit status is 1 until every run
    completed. The table of models x tasks (headline score, n, errors, run ids)
    ends the output; each task run on two models or more also gets its comparison
    report (`rulebench report RUN ...`) in the output folder.

    With --shard I/N every run runs only shard I of its items, as a shard run in
    the store (give each shard its own --store); the same command resumes it.
    `rulebench runs merge` joins the shards' stores, run by run; the file run
    without --shard on the merged store then reuses the joined runs.
    """
    from rulebench.cli.batch_run import BatchCommand, run_batch_command
    from rulebench.core.shards import parse_shard
    from rulebench.study.experiment import load_experiment

    piece = None if shard is None else parse_shard(shard, os.environ)
    loaded = load_experiment(file, study.store, piece)
    folder = study.output or loaded.output or _default_folder(loaded.name, piece)
    models = len(dict.fromkeys(run.model for run in loaded.runs))
    tasks = len(dict.fromkeys(run.task for run in loaded.runs))
    of_items = "" if piece is None else f" (shard {piece} of each run's items)"
    err.print(
        safe_text(
            f"experiment {loaded.name}: {models} model(s) x {tasks} task(s) = "
            f"{len(loaded.runs)} runs{of_items}; store {loaded.store or 'default'}; "
            f"output {folder}"
        ),
        highlight=False,
    )
    if dry_run:
        blocked = _show_plan(loaded.runs, loaded.store)
        if blocked:
            err.print(f"{blocked} of {len(loaded.runs)} runs cannot start", highlight=False)
            raise typer.Exit(1)  # as running the file would: a script can check the plan
        return
    title = f"experiment {loaded.name}" + ("" if piece is None else f", shard {piece}")
    command = BatchCommand(loaded.store, folder, title, study.as_json, fail_on_error)
    run_batch_command(loaded.runs, command)


def _default_folder(name: str, shard: "Shard | None") -> Path:
    """rulebench-experiment/<name>/, or <name>-shard-I-of-N/ so shards never share one."""
    from rulebench.cli.batch_run import DEFAULT_OUTPUT
    from rulebench.study.batch_report import folder_name

    piece = "" if shard is None else f"-shard-{shard.index}-of-{shard.count}"
    return DEFAULT_OUTPUT / (folder_name(name) + piece)


def _show_plan(planned: list["PlannedRun"], store: Path | None) -> int:
    """One line per run: what running the file now would do with it; the count that cannot start."""
    from rulebench.engine.store.database import Store
    from rulebench.engine.store.location import default_store_path
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
