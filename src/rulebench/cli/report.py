"""`rulebench report`: the analyses of stored runs, as Markdown with PNG/SVG plots."""

from pathlib import Path
from typing import Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out

app = typer.Typer(help="Build reports from stored runs.", no_args_is_help=True)


@app.command()
def inferential(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="One or more inferential runs (ids or unique prefixes); several give a comparison."
        ),
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Folder for report.md and the plots.")
    ] = Path("rulebench-report"),
    extract: Annotated[
        Literal["paper", "robust"],
        typer.Option(
            help="Re-score with this extraction mode (both are stored with every result)."
        ),
    ] = "robust",
    store: opt.StoreOption = None,
) -> None:
    """The paper's analyses of one run, or a comparison of several.

    Tables 1 and 2, the rule-quantity curve, CoT deltas, the trigger/execution split and the
    five capability dimensions with a radar chart (PNG and SVG).
    """
    from rich.markdown import Markdown

    from rulebench.core.errors import ConfigError
    from rulebench.engine.store import Store
    from rulebench.inferential.analysis import to_records
    from rulebench.report.inferential import write_report

    with Store(store) as db:
        runs = [db.get_run(run_id) for run_id in run_ids]
        for run in runs:
            if run.task != "inferential":
                raise ConfigError(f"run {run.id} is a '{run.task}' run, not an inferential one")
        models = [run.model for run in runs]
        labelled = [
            (
                run.model if models.count(run.model) == 1 else f"{run.model} ({run.id})",
                to_records(db.iter_results(run.id), extract),
            )
            for run in runs
        ]
    path = write_report(labelled, output, extract)
    out.print(Markdown(path.read_text(encoding="utf-8")))
    err.print(f"report written to {path} (plots beside it)")
