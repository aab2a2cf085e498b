"""`rulebench experiment FILE`: every model of an experiment file on every task, as one batch."""

import os
from pathlib import Path
from typing import Annotated

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
    from rulebench.study import experiment_plan as plan
    from rulebench.study.experiment import load_experiment

    piece = None if shard is None else parse_shard(shard, os.environ)
    loaded = load_experiment(file, study.store, piece)
    folder = plan.output_folder(loaded, study.output, piece)
    err.print(safe_text(plan.experiment_line(loaded, folder, piece)), highlight=False)
    if dry_run:
        lines, blocked = plan.plan_lines(loaded.runs, loaded.store)
        for line in lines:
            out.print(safe_text(line), highlight=False, soft_wrap=True)
        if blocked:
            err.print(f"{blocked} of {len(loaded.runs)} runs cannot start", highlight=False)
            raise typer.Exit(1)  # as running the file would: a script can check the plan
        return
    title = plan.batch_title(loaded, piece)
    command = BatchCommand(loaded.store, folder, title, study.as_json, fail_on_error)
    run_batch_command(loaded.runs, command)


def register(app: typer.Typer) -> None:
    """Add the command to the main app."""
    app.command("experiment")(experiment)
