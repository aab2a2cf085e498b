"""`rulebench report`: the analyses of stored runs, as Markdown with PNG/SVG plots."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from pydantic import JsonValue

    from rulebench.engine.records import RunRecord

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

    Tables 1 and 2, the rule-quantity curve, CoT deltas, the trigger/execution split (runs with
    --cite-rule), the five capability dimensions with a radar chart (PNG and SVG), the SALAD
    long tail and the prompt-echo baseline (samples are rebuilt from each run's settings).
    """
    from rich.markdown import Markdown

    from rulebench.core.errors import ConfigError
    from rulebench.engine.store import Store
    from rulebench.inferential.analysis import to_records
    from rulebench.inferential.echo_baseline import echo_records, index_run
    from rulebench.report.inferential import write_report

    with Store(store, readonly=True) as db:
        runs = [db.get_run(run_id) for run_id in run_ids]
        for run in runs:
            if run.task != "inferential":
                raise ConfigError(f"run {run.id} is a '{run.task}' run, not an inferential one")
        models = [run.model for run in runs]
        results = {run.id: list(db.iter_results(run.id)) for run in runs}
    labelled = [(_label(run, models), to_records(results[run.id], extract)) for run in runs]
    echoes = {
        _label(run, models): echo_records(results[run.id], index_run(_task_config(run)))
        for run in runs
    }
    path = write_report(labelled, output, extract, echoes)
    out.print(Markdown(path.read_text(encoding="utf-8")))
    err.print(safe_text(f"report written to {path} (plots beside it)"))


def _task_config(run: "RunRecord") -> dict[str, "JsonValue"]:
    """The inferential task's stored configuration (what rebuilds its samples)."""
    config = run.config.get("task_config")
    return config if isinstance(config, dict) else {}


def _label(run: "RunRecord", models: list[str]) -> str:
    """The model, the run id when a model repeats, and the scoring when it is not generation."""
    label = run.model if models.count(run.model) == 1 else f"{run.model} ({run.id})"
    config = run.config.get("task_config")
    scoring = config.get("scoring") if isinstance(config, dict) else None
    return f"{label} [log-likelihood scoring]" if scoring == "loglik" else label


@app.command()
def scenarios(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="One or more scenarios runs; several are compared (McNemar on shared cases)."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Also write the Markdown to this file.", show_default=False
        ),
    ] = None,
    store: opt.StoreOption = None,
) -> None:
    """Pass rates per suite and bucket with the headline, and breakdowns.

    Breakdowns per scenario, behavior and strategy, the spread across repeats, and paired
    comparisons (McNemar) when several runs are given.
    """
    from rich.markdown import Markdown

    from rulebench.core.errors import ConfigError
    from rulebench.engine.store import Store
    from rulebench.report.scenarios import render
    from rulebench.scenarios.protocol import Protocol
    from rulebench.scenarios.scoring import to_records

    with Store(store, readonly=True) as db:
        runs = [db.get_run(run_id) for run_id in run_ids]
        labelled = []
        for run in runs:
            if run.task != "scenarios":
                raise ConfigError(f"run {run.id} is a '{run.task}' run, not a scenarios one")
            protocol = Protocol.model_validate(dict(run.config["task_config"])["protocol"])  # type: ignore[arg-type]
            label = (
                run.model
                if [r.model for r in runs].count(run.model) == 1
                else f"{run.model} ({run.id})"
            )
            labelled.append((label, protocol.label(), to_records(db.iter_results(run.id))))
    text = render(labelled)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        err.print(safe_text(f"report written to {output}"))
    out.print(Markdown(text))


@app.command("judge")
def judge_report(
    run_id: Annotated[str, typer.Argument(help="A judge run.")],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Also write the Markdown to this file.", show_default=False
        ),
    ] = None,
    store: opt.StoreOption = None,
) -> None:
    """Accuracy, precision, recall and F1 of a judge run, overall and per rule, with 95% CIs.

    "Violation" is the positive class. Intervals: Wilson for accuracy, precision and recall;
    for F1, the Wilson interval of the Jaccard index J = TP/(TP+FP+FN) mapped through
    F1 = 2J/(1+J). Warns when a source run did not complete or holds error results.
    """
    from rich.markdown import Markdown

    from rulebench.core.errors import ConfigError
    from rulebench.engine.store import Store
    from rulebench.report.scenarios import render_judge
    from rulebench.scenarios.judge import detection_by_rule, detection_scores, source_warnings

    with Store(store, readonly=True) as db:
        run = db.get_run(run_id)
        if run.task != "judge":
            raise ConfigError(f"run {run.id} is a '{run.task}' run, not a judge one")
        config = run.config.get("task_config")
        settings = config if isinstance(config, dict) else {}
        sources = settings.get("runs")
        source_ids = [str(s) for s in sources] if isinstance(sources, list) else []
        warnings = source_warnings(db, source_ids)
        triples = [
            (str(r.metadata.get("behavior")), str(r.outcome.details["truth"]), r.outcome.answer)
            for r in db.iter_results(run.id)
            if r.outcome is not None
        ]
    overall = detection_scores([(truth, answer) for _, truth, answer in triples])
    title = (
        f"Judge run {run.id} ({run.model}); ground truth: {settings.get('mode', 'compat')} "
        f"evaluators; source runs: {', '.join(source_ids) or 'none recorded'}."
    )
    text = render_judge(title, overall, detection_by_rule(triples), warnings)
    for warning in warnings:
        err.print(safe_text(f"warning: {warning}", style="yellow"))
    if output is not None:
        output.write_text(text, encoding="utf-8")
        err.print(safe_text(f"report written to {output}"))
    out.print(Markdown(text))
