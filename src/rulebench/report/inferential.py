"""The inferential report: the paper's tables and figures for one or several runs.

Markdown plus PNG/SVG plots; every accuracy is shown with its 95% confidence interval.
"""

from collections.abc import Sequence
from pathlib import Path

from rulebench.inferential.analysis import (
    DIMENSIONS,
    Dimension,
    Record,
    accuracy,
    accuracy_by,
    cot_deltas,
    dimensions,
    error_split,
)
from rulebench.report.markdown import escape_markdown, percent, table
from rulebench.report.plots import quantity_curve, radar

QUANTITIES = ("none", "golden", "few", "all")
Runs = Sequence[tuple[str, list[Record]]]
"""(label, records) per run; the label names the model (and run when models repeat)."""


def _tasks(runs: Runs) -> list[str]:
    return sorted({r.task for _, records in runs for r in records})


def cells_table(runs: Runs) -> str:
    """Accuracy of every (task, quantity, form, CoT, factuality) cell of every run."""
    rows = []
    for label, records in runs:
        by = accuracy_by(records, lambda r: (r.task, r.quantity, r.form, r.cot, r.counterfactual))
        for (task, quantity, form, cot, cf), value in by.items():
            rows.append(
                [
                    label,
                    str(task),
                    str(quantity),
                    str(form),
                    "cot" if cot else "direct",
                    "C.F." if cf else "factual",
                    percent(value),
                ]
            )
    return table(
        ["model", "task", "rules", "form", "answer", "rules are", "accuracy % [95% CI]"], rows
    )


def table_1(runs: Runs) -> str:
    """The paper's Table 1 shape: rows model x form, columns task x {All, Few}."""
    tasks = _tasks(runs)
    rows = []
    for label, records in runs:
        by = accuracy_by(
            [r for r in records if not r.counterfactual], lambda r: (r.form, r.task, r.quantity)
        )
        for form in ("fol", "nl"):
            cells = [percent(by.get((form, t, q))) for t in tasks for q in ("all", "few")]
            if any(c != "-" for c in cells):
                rows.append([label, form.upper(), *cells])
    return table(["model", "form", *[f"{t} {q}" for t in tasks for q in ("All", "Few")]], rows)


def table_2(runs: Runs) -> str:
    """The paper's Table 2 shape: rows model, columns task x {factual, counterfactual}."""
    tasks = _tasks(runs)
    rows = []
    for label, records in runs:
        by = accuracy_by(records, lambda r: (r.task, r.counterfactual))
        rows.append([label, *[percent(by.get((t, cf))) for t in tasks for cf in (False, True)]])
    return table(
        ["model", *[f"{t} {'C.F.' if cf else 'factual'}" for t in tasks for cf in (False, True)]],
        rows,
    )


def quantity_section(runs: Runs, out_dir: Path) -> str:
    """Accuracy against rule quantity (table and curve)."""
    rows, curves = [], {}
    for label, records in runs:
        by = accuracy_by(
            [r for r in records if not r.counterfactual], lambda r: (r.task, r.quantity)
        )
        for task in _tasks(runs):
            cells = {q: by.get((task, q)) for q in QUANTITIES}
            if any(cells.values()):
                rows.append([label, task, *[percent(cells[q]) for q in QUANTITIES]])
                curves[f"{label} {task}"] = {
                    q: p.value for q, p in cells.items() if p is not None and p.n
                }
    paths = quantity_curve(curves, QUANTITIES, out_dir / "rule_quantity")
    body = table(["model", "task", *QUANTITIES], rows)
    return f"{body}\n\n![rule quantity]({paths[0].name}) ([SVG]({paths[1].name}))"


def cot_section(runs: Runs) -> str:
    """Accuracy with CoT minus without, per task and rule quantity, in points."""
    rows = []
    for label, records in runs:
        for (task, quantity), delta in cot_deltas(records).items():
            rows.append(
                [
                    label,
                    str(task),
                    str(quantity),
                    f"{100 * delta.value:+.1f} [{100 * delta.low:+.1f}, {100 * delta.high:+.1f}]",
                ]
            )
    return (
        table(["model", "task", "rules", "CoT - direct (points) [95% CI]"], rows)
        if rows
        else "_No run had both CoT and direct answers._"
    )


def error_section(runs: Runs) -> str:
    """Shares of triggering, execution and uncited errors among wrong answers."""
    rows = []
    for label, records in runs:
        cited = [r for r in records if r.quantity in ("few", "all")]
        for task, split in error_split(cited).items():
            rows.append(
                [
                    label,
                    task,
                    str(split["triggering"].n),
                    *[percent(split[k]) for k in ("triggering", "execution", "no citation")],
                ]
            )
    if not rows:
        return "_No wrong answers with several rules listed._"
    return table(
        ["model", "task", "wrong answers", "triggering %", "execution %", "no citation %"], rows
    )


def dimension_section(runs: Runs, out_dir: Path) -> str:
    """The five capability dimensions per run, as a table and a radar chart."""
    rows, series = [], {}
    for label, records in runs:
        found = {d.name: d for d in dimensions(records)}
        series[label] = {name: d.value for name, d in found.items()}
        rows.append(
            [
                label,
                percent(accuracy(records)),
                *[_dimension_cell(found.get(n)) for n in DIMENSIONS],
            ]
        )
    paths = radar(series, DIMENSIONS, out_dir / "dimensions")
    body = table(["model", "overall", *DIMENSIONS], rows)
    return f"{body}\n\n![capability dimensions]({paths[0].name}) ([SVG]({paths[1].name}))"


def _dimension_cell(dimension: Dimension | None) -> str:
    if dimension is None:
        return "-"
    return f"{100 * dimension.value:.1f} [{100 * dimension.low:.1f}-{100 * dimension.high:.1f}]"


def write_report(runs: Runs, out_dir: Path, mode: str) -> Path:
    """Write report.md with every table and plot into `out_dir`; return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sections = [
        "# Inferential rule-following report\n\n"
        f"Extraction mode: **{escape_markdown(mode)}**. "
        "Accuracy in %, [95% confidence interval]; refusals are excluded, errors are not answers.",
        "## Accuracy by setting\n\n" + cells_table(runs),
        "## Rule form (Table 1 shape)\n\n" + table_1(runs),
        "## Factual vs counterfactual rules (Table 2 shape)\n\n" + table_2(runs),
        "## Rule quantity\n\n" + quantity_section(runs, out_dir),
        "## Chain of thought\n\n" + cot_section(runs),
        "## Triggering vs execution errors\n\n" + error_section(runs),
        "## Capability dimensions\n\n" + dimension_section(runs, out_dir),
    ]
    path = out_dir / "report.md"
    path.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    return path
