"""`rulebench report`: the analyses of stored runs, as Markdown with PNG/SVG plots, or JSON.

Every report names, at its top and on stderr, a run that did not complete or holds errors:
its numbers cover only part of the task.
"""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from pydantic import JsonValue

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.core.items import ItemResult
    from rulebench.engine.records import RunRecord
    from rulebench.engine.store import Store
    from rulebench.inferential.analysis import Record

app = typer.Typer(help="Build reports from stored runs.", no_args_is_help=True)
DEFAULT_INFERENTIAL_OUTPUT = Path("rulebench-report")
JsonReportOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print the tables' numbers as JSON to stdout instead of the Markdown "
        "(files are written only with --output).",
    ),
]


@app.command()
def inferential(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="One or more inferential runs (ids or unique prefixes); several give a comparison."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help=f"Folder for report.md and the plots (default: {DEFAULT_INFERENTIAL_OUTPUT}; "
            "with --json: none).",
            show_default=False,
        ),
    ] = None,
    extract: Annotated[
        Literal["paper", "robust"],
        typer.Option(
            help="Re-score with this extraction mode (both are stored with every result)."
        ),
    ] = "robust",
    store: opt.StoreOption = None,
    as_json: JsonReportOption = False,
) -> None:
    """The paper's analyses of one run, or a comparison of several.

    Tables 1 and 2, the rule-quantity curve, CoT deltas, the trigger/execution split (runs with
    --cite-rule), the five capability dimensions with a radar chart (PNG and SVG), the SALAD
    long tail and the prompt-echo baseline (samples are rebuilt from each run's settings).
    """
    from rulebench.engine.store import Store
    from rulebench.inferential.analysis import to_records
    from rulebench.report.numbers import inferential_numbers

    with Store(store, readonly=True) as db:
        runs = _runs_of(db, run_ids, "inferential")
        models = [run.model for run in runs]
        results = {run.id: list(db.iter_results(run.id)) for run in runs}
        entries = {run.id: _run_entry(db, run, _label(run, models)) for run in runs}
    warnings = _warn([w for entry in entries.values() for w in _strs(entry["warnings"])])
    labelled = [(_label(run, models), to_records(results[run.id], extract)) for run in runs]
    if as_json:
        numbers: list[JsonValue] = [
            {**entries[run.id], **inferential_numbers(records)}
            for run, (_, records) in zip(runs, labelled, strict=True)
        ]
        _print_json({"report": "inferential", "extraction": extract, "runs": numbers})
        if output is None:
            return
    path = _write_inferential(runs, results, labelled, output, (extract, warnings))
    if not as_json:
        from rich.markdown import Markdown

        out.print(Markdown(path.read_text(encoding="utf-8")))
    err.print(safe_text(f"report written to {path} (plots beside it)"))


def _write_inferential(
    runs: "Sequence[RunRecord]",
    results: dict[str, list["ItemResult"]],
    labelled: list[tuple[str, list["Record"]]],
    output: Path | None,
    settings: tuple[str, list[str]],
) -> Path:
    """report.md and its plots; the prompt-echo baseline rebuilds each run's samples."""
    from rulebench.inferential.echo_baseline import echo_records, index_run
    from rulebench.report.inferential import write_report

    extract, warnings = settings
    echoes = {
        label: echo_records(results[run.id], index_run(_task_config(run)))
        for run, (label, _) in zip(runs, labelled, strict=True)
    }
    folder = output or DEFAULT_INFERENTIAL_OUTPUT
    return write_report(labelled, folder, extract, echoes, warnings)


def _task_config(run: "RunRecord") -> dict[str, JsonValue]:
    """A run's stored task configuration (what rebuilds its samples, its protocol...)."""
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
    as_json: JsonReportOption = False,
) -> None:
    """Pass rates per suite and bucket with the headline, and breakdowns.

    Breakdowns per scenario, behavior and strategy, the spread across repeats, and paired
    comparisons (McNemar) when several runs are given.
    """
    from rulebench.engine.store import Store
    from rulebench.report.numbers import scenario_comparisons, scenario_numbers
    from rulebench.report.scenarios import render
    from rulebench.scenarios.protocol import stored_label
    from rulebench.scenarios.scoring import to_records

    with Store(store, readonly=True) as db:
        runs = _runs_of(db, run_ids, "scenarios")
        models = [run.model for run in runs]
        labelled, entries = [], []
        for run in runs:
            label = run.model if models.count(run.model) == 1 else f"{run.model} ({run.id})"
            protocol = stored_label(_task_config(run).get("protocol"))
            labelled.append((label, protocol, to_records(db.iter_results(run.id))))
            entries.append({**_run_entry(db, run, label), "protocol": protocol})
    warnings = _warn([w for entry in entries for w in _strs(entry["warnings"])])
    text = render(labelled, warnings)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        err.print(safe_text(f"report written to {output}"))
    if not as_json:
        from rich.markdown import Markdown

        out.print(Markdown(text))
        return
    numbers: list[JsonValue] = [
        {**entry, **scenario_numbers(records)}
        for entry, (_, _, records) in zip(entries, labelled, strict=True)
    ]
    comparisons = scenario_comparisons([(label, records) for label, _, records in labelled])
    _print_json({"report": "scenarios", "runs": numbers, "comparisons": comparisons})


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
    as_json: JsonReportOption = False,
) -> None:
    """Accuracy, precision, recall and F1 of a judge run, overall and per rule, with 95% CIs.

    "Violation" is the positive class. Intervals: Wilson for accuracy, precision and recall;
    for F1, the Wilson interval of the Jaccard index J = TP/(TP+FP+FN) mapped through
    F1 = 2J/(1+J). Warns when the judge run or a source run did not complete or holds errors.
    """
    from rulebench.engine.store import Store
    from rulebench.report.numbers import detection_json
    from rulebench.report.scenarios import render_judge
    from rulebench.scenarios.judge import detection_by_rule, detection_scores, source_warnings

    with Store(store, readonly=True) as db:
        [run] = _runs_of(db, [run_id], "judge")
        settings = _task_config(run)
        sources = settings.get("runs")
        source_ids = [str(s) for s in sources] if isinstance(sources, list) else []
        entry = _run_entry(db, run, run.model)
        warnings = _warn([*_strs(entry["warnings"]), *source_warnings(db, source_ids)])
        triples = [
            (str(r.metadata.get("behavior")), str(r.outcome.details["truth"]), r.outcome.answer)
            for r in db.iter_results(run.id)
            if r.outcome is not None
        ]
    overall = detection_scores([(truth, answer) for _, truth, answer in triples])
    by_rule = detection_by_rule(triples)
    mode = str(settings.get("mode", "compat"))
    title = (
        f"Judge run {run.id} ({run.model}); ground truth: {mode} "
        f"evaluators; source runs: {', '.join(source_ids) or 'none recorded'}."
    )
    text = render_judge(title, overall, by_rule, warnings)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        err.print(safe_text(f"report written to {output}"))
    if not as_json:
        from rich.markdown import Markdown

        out.print(Markdown(text))
        return
    payload: dict[str, JsonValue] = {
        "report": "judge",
        "run": {
            **entry,
            "warnings": [str(w) for w in warnings],
            "mode": mode,
            "source_runs": [str(s) for s in source_ids],
        },
        "overall": detection_json(overall),
        "by_rule": {rule: detection_json(scores) for rule, scores in by_rule.items()},
    }
    _print_json(payload)


def _runs_of(db: "Store", run_ids: Sequence[str], task: str) -> list["RunRecord"]:
    """The runs by id or prefix; a run of another task is a ConfigError naming it."""
    from rulebench.core.errors import ConfigError

    runs = [db.get_run(run_id) for run_id in run_ids]
    for run in runs:
        if run.task != task:
            article = "an" if task[0] in "aeiou" else "a"
            raise ConfigError(f"run {run.id} is a '{run.task}' run, not {article} {task} one")
    return runs


def _run_entry(db: "Store", run: "RunRecord", label: str) -> dict[str, JsonValue]:
    """What a JSON report says of a run before its numbers: who, and whether it completed."""
    from rulebench.report.run_notes import run_warnings

    return {
        "id": run.id,
        "model": run.model,
        "label": label,
        "status": db.effective_status(run),
        "warnings": list(run_warnings(db, run)),
    }


def _warn(warnings: list[str]) -> list[str]:
    """Print each warning on stderr (the report shows them at its top too); return them."""
    for warning in warnings:
        err.print(safe_text(f"warning: {warning}", style="yellow"), highlight=False)
    return warnings


def _strs(value: JsonValue) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _print_json(payload: dict[str, JsonValue]) -> None:
    # allow_nan=False: numbers.py turns NaN into null; a NaN left over must fail loudly here.
    out.print_json(json.dumps(payload, allow_nan=False), ensure_ascii=True)
