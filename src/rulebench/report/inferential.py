"""The inferential report: the paper's tables and figures for one or several runs.

Markdown plus PNG/SVG plots; every accuracy is shown with its 95% confidence interval. A table
cell never mixes CoT with direct answers, shot counts, rule citation or rule layouts: those
are named in an "answer" column, and each combination gets its own row (a "paper shots" row
holds each dataset at the paper's own count, one column per dataset: `paper_tables`).
"""

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

from rulebench.inferential.analysis import (
    DIMENSIONS,
    ERROR_KINDS,
    UPSTREAM_KINDS,
    Dimension,
    Record,
    accuracy,
    accuracy_by,
    cell_of,
    dimensions,
    error_split_by,
    is_behaviour_record,
)
from rulebench.inferential.echo_baseline import EchoRecord
from rulebench.inferential.pairing import cot_deltas
from rulebench.report.document import Chart, Document, Section, write_markdown
from rulebench.report.inferential_baselines import (
    echo_section,
    long_tail_section,
    repeats_section,
)
from rulebench.report.inferential_cells import (
    SETTING_HEADER,
    answer_label,
    factuality,
    setting_columns,
)
from rulebench.report.markdown import escape_markdown, percent, table
from rulebench.report.paper_tables import (
    delta_matching,
    delta_points,
    paper_answer_label,
    table_1,
    table_2,
)
from rulebench.report.plots import Curve, measured_axes, quantity_figure, radar_figure
from rulebench.report.run_notes import warning_block
from rulebench.report.run_wording import wording_header

QUANTITIES = ("none", "golden", "few", "all")
Runs = Sequence[tuple[str, list[Record]]]
"""(label, records) per run; the label names the model (and run when models repeat)."""
BEHAVIOUR_COMMAND = (
    "rulebench run inferential --cite-rule --counterfactual on --quantity few --cot on --shots 2"
)
"""The paper's behaviour analysis: counterfactual rules, few rules, few-shot CoT, citing."""


def cells_table(runs: Runs) -> str:
    """Accuracy of every cell (task x setting) of every run."""
    rows = [
        [label, *setting_columns(cell), percent(value)]
        for label, records in runs
        for cell, value in accuracy_by(records, cell_of).items()
    ]
    return table(["model", *SETTING_HEADER, "accuracy % [95% CI]"], rows)


def quantity_section(runs: Runs) -> Section:
    """Factual accuracy against rule quantity, one row and curve per task x form x answer.

    The chart has one panel per task, the form as line style and the model and answer style
    as colour, so twenty curves stay apart.
    """
    rows, curves = [], []
    for label, records in runs:
        by = accuracy_by([r for r in records if not r.counterfactual], cell_of)
        for base in sorted({c._replace(quantity="") for c in by if c.quantity != "none"}):
            # Without rules there is no form: the no-rule cell is the same for NL and FOL.
            cells = {
                q: by.get(base._replace(quantity=q, form="nl" if q == "none" else base.form))
                for q in QUANTITIES
            }
            name = f"{base.task} {base.form.upper()} {answer_label(base)}"
            rows.append([label, name, *[percent(cells[q]) for q in QUANTITIES]])
            answer = paper_answer_label(base)
            series = answer if len(runs) == 1 else f"{label}, {answer}"
            points = {q: p.value for q, p in cells.items() if p is not None and p.n}
            curves.append(Curve(base.task, series, base.form.upper(), points))
    heading = "Rule quantity"
    if not rows:
        return Section(heading, "_No factual results with rules._")
    body = table(["model", "task, form, answer", *QUANTITIES], rows)
    chart = Chart("rule_quantity", "rule quantity", partial(quantity_figure, curves, QUANTITIES))
    return Section(heading, body, (chart,))


def cot_section(runs: Runs) -> str:
    """Accuracy with CoT minus without, per cell (same task, rules, form, shots), in points."""
    rows = [
        [
            label,
            cell.task,
            cell.quantity,
            cell.form.upper(),
            answer_label(cell._replace(cot=False)).removeprefix("direct, "),
            factuality(cell),
            delta_points(delta),
            delta_matching(delta),
        ]
        for label, records in runs
        for cell, delta in cot_deltas(records).items()
    ]
    if not rows:
        return "_No run had both CoT and direct answers in the same setting._"
    header = ["model", "task", "rules", "form", "shots", "rules are"]
    return table([*header, "CoT - direct (points) [95% CI]", "items"], rows)


def error_section(runs: Runs) -> str:
    """Shares of triggering, execution and uncited errors among wrong answers (cited runs).

    Then the same wrong answers as upstream's parse counts them (no "no citation" class), to
    set beside the paper's numbers.
    """
    rows, uncited = [], []
    for label, records in runs:
        cited = [r for r in records if is_behaviour_record(r)]
        if not cited:
            uncited.append(label)
        upstream = error_split_by(cited, cell_of, "upstream")
        for cell, split in error_split_by(cited, cell_of).items():
            rows.append(
                [
                    label,
                    cell.task,
                    cell.quantity,
                    answer_label(cell),
                    factuality(cell),
                    str(split["triggering"].n),
                    *[percent(split[k]) for k in ERROR_KINDS],
                    *[percent(upstream[cell][k]) for k in UPSTREAM_KINDS],
                ]
            )
    header = ["model", "task", "rules", "answer", "rules are", "wrong answers"]
    header += [f"{k} % [95% CI]" for k in ERROR_KINDS]
    header += [f"{k} as upstream counts % [95% CI]" for k in UPSTREAM_KINDS]
    how = (
        "The split needs replies that name the rule they applied: run with `--cite-rule` "
        f"and several rules, as the paper does: `{BEHAVIOUR_COMMAND}`."
    )
    if not uncited:
        return table(header, rows) if rows else "_No wrong answers among cited replies._"
    how = f"Not asked to cite rules: {escape_markdown(', '.join(uncited))}. {how}"
    return f"{table(header, rows)}\n\n{how}" if rows else how


def dimension_section(runs: Runs) -> Section:
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
    body = table(["model", "overall", *DIMENSIONS], rows)
    note = (
        "Each dimension is the mean accuracy of its own cells: Executing = golden-rule cells, "
        "Triggering = all-rule cells, Formal = FOL cells, Applying = CoT cells with rules, "
        "Counterfactual = counterfactual cells. A dimension without such cells is not "
        "measured; the chart leaves it out rather than drawing 0."
    )
    heading = "Capability dimensions"
    if not measured_axes(series, DIMENSIONS):
        none = "_No dimension was measured, so there is no chart._"
        return Section(heading, f"{body}\n\n{note}\n\n{none}")
    chart = Chart("dimensions", "capability dimensions", partial(radar_figure, series, DIMENSIONS))
    return Section(heading, f"{body}\n\n{note}", (chart,))


def _dimension_cell(dimension: Dimension | None) -> str:
    if dimension is None:
        return "not measured"
    return f"{100 * dimension.value:.1f} [{100 * dimension.low:.1f}-{100 * dimension.high:.1f}]"


def inferential_document(
    runs: Runs,
    mode: str,
    echoes: Mapping[str, Sequence[EchoRecord]] | None = None,
    warnings: Sequence[str] = (),
    prompts: Sequence[str] = (),
) -> Document:
    """Every table and chart of the report, for report.md or an HTML page.

    Args:
        runs: (label, records) per run.
        mode: the extraction mode the records were judged by (named in the report).
        echoes: run label -> the prompt-echo baseline of its items (`echo_baseline`).
        warnings: why the numbers may not stand for the whole task (runs not completed),
            shown at the top.
        prompts: each run's wording label ("prompts: upstream (clone at commit ...)").
    """
    notes = warning_block(warnings)
    header = wording_header([label for label, _ in runs], prompts)
    sections = (
        *([Section("", notes)] if notes else []),
        *([Section("", header)] if header else []),
        Section(
            "",
            f"Extraction mode: **{escape_markdown(mode)}**. "
            "Accuracy in %, [95% confidence interval] (Wilson for accuracies, Newcombe for "
            "differences); refusals are excluded, errors are not answers.",
        ),
        Section("Accuracy by setting", cells_table(runs)),
        Section("Rule form (Table 1 shape)", table_1(runs)),
        Section("Factual vs counterfactual rules (Table 2 shape)", table_2(runs)),
        quantity_section(runs),
        Section("Chain of thought", cot_section(runs)),
        Section("Triggering vs execution errors", error_section(runs)),
        dimension_section(runs),
        Section("Long-tail labels (SALAD)", long_tail_section(runs)),
        Section("Prompt echo baseline", echo_section(runs, echoes, mode)),
        Section("Repeats", repeats_section(runs)),
    )
    return Document("Inferential rule-following report", sections)


def write_report(
    runs: Runs,
    out_dir: Path,
    mode: str,
    echoes: Mapping[str, Sequence[EchoRecord]] | None = None,
    warnings: Sequence[str] = (),
) -> Path:
    """Write report.md with every table and plot into `out_dir`; return its path.

    The arguments after `out_dir` are `inferential_document`'s.
    """
    return write_markdown(inferential_document(runs, mode, echoes, warnings), out_dir)
