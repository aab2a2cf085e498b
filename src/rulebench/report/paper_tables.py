"""The paper's Table 1 (rule form) and Table 2 (factual vs counterfactual) for inferential runs.

Each table holds only the cells of the paper's experiment it mirrors, so a reader can set a row
beside the published one: Table 1 the zero-shot, direct, factual cells (experiments 1-2);
Table 2 each counterfactual cell beside its factual counterpart (experiments 3-4). Every other
cell stays in "Accuracy by setting".
"""

from collections.abc import Sequence

from rulebench.core.errors import ConfigError
from rulebench.core.stats import Proportion
from rulebench.inferential.analysis import Cell, Record, accuracy_by, cell_of
from rulebench.inferential.differences import Delta
from rulebench.inferential.pairing import factuality_comparisons, family
from rulebench.inferential.registry import task_definition
from rulebench.report.inferential_cells import answer_label
from rulebench.report.markdown import escape_markdown, percent, table

Runs = Sequence[tuple[str, list[Record]]]
"""(label, records) per run; the label names the model (and run when models repeat)."""
TABLE_1_QUANTITIES = ("all", "few")
TABLE_2_QUANTITIES = ("golden", "few")
PAPER_SHOTS = "paper shots"
"""The answer column's word for "each dataset's demonstration count in the paper's design"."""


def delta_points(delta: Delta) -> str:
    """A difference in percentage points with its interval: `+12.5 [-3.0, +28.1]`."""
    return f"{100 * delta.value:+.1f} [{100 * delta.low:+.1f}, {100 * delta.high:+.1f}]"


def delta_matching(delta: Delta) -> str:
    """Whether a difference was taken over matched items, and how many."""
    return "unpaired" if delta.pairs is None else f"paired, {delta.pairs} items"


def row_order(cell: Cell) -> tuple[object, ...]:
    """FOL before NL as in the paper, then direct before CoT, fewer shots first."""
    return (cell.cot, cell.shots, cell.cite_rule, cell.layout, cell.form, tuple(cell))


def _in_table_1(cell: Cell) -> bool:
    """Experiments 1-2: zero-shot, answered directly, factual rules, no rule citation."""
    return (
        cell.quantity in TABLE_1_QUANTITIES
        and not (cell.counterfactual or cell.cot or cell.cite_rule)
        and cell.shots == 0
    )


def table_1(runs: Runs) -> str:
    """Rows model x form, columns task x {All, Few}: the paper's zero-shot NL/FOL table."""
    tasks = sorted({r.task for _, rs in runs for r in rs if _in_table_1(cell_of(r))})
    if not tasks:
        return (
            "_No zero-shot, direct, factual results with few or all rules: run "
            "`-q few -q all --form nl --form fol` (or `--grid paper`)._"
        )
    rows = []
    for label, records in runs:
        by = accuracy_by([r for r in records if _in_table_1(cell_of(r))], cell_of)
        for base in _table_1_bases(by):
            cells = [percent(_table_1_cell(by, base, t, q)) for t in tasks for q in ("all", "few")]
            rows.append([label, _form_label(base), *cells])
    header = ["model", "form", *[f"{t} {q}" for t in tasks for q in ("All", "Few")]]
    note = (
        "Zero-shot, direct answers, factual rules: the paper's experiments 1-2. The no-rule "
        "and golden-rule cells are under Rule quantity; few-shot, CoT and counterfactual cells "
        "under Accuracy by setting and the tables below."
    )
    return f"{table(header, rows)}\n\n{note}"


def _table_1_bases(by: dict[Cell, Proportion]) -> list[Cell]:
    """One row per form (and scoring, rule layout): the cells without task and quantity.

    A rule layout applies to all-rule cells only (few-rule prompts are per item), so a
    per-item row that holds no All cell is folded into the shared-layout row of its form.
    """
    bases = {c._replace(task="", quantity="") for c in by}
    shared = {b._replace(layout="per-item") for b in bases if b.layout != "per-item"}
    kept = [
        b
        for b in bases
        if b.layout != "per-item"
        or b not in shared
        or any(c._replace(task="", quantity="") == b and c.quantity == "all" for c in by)
    ]
    return sorted(kept, key=row_order)


def _table_1_cell(
    by: dict[Cell, Proportion], base: Cell, task: str, quantity: str
) -> Proportion | None:
    cell = base._replace(task=task, quantity=quantity)
    if quantity == "few" and cell not in by:
        return by.get(cell._replace(layout="per-item"))
    return by.get(cell)


def _form_label(base: Cell) -> str:
    """The form, plus how the row was asked where that is not plain generation ("NL, ...")."""
    extra = answer_label(base).removeprefix("direct, 0-shot").removeprefix(", ")
    return f"{base.form.upper()}, {extra}" if extra else base.form.upper()


Row = tuple[Cell, str]
Pairs = dict[tuple[Row, str, str], tuple[Proportion, Proportion]]
"""(row, family, quantity) -> (factual, counterfactual) accuracy; the row is a cell without
task, quantity, factuality and shots, plus its shots as the answer column names them."""


def table_2(runs: Runs) -> str:
    """Rows model x setting x factuality, columns family x {Golden, Few}: pairs only.

    A counterfactual cell is shown beside its factual counterpart; cells without one are named
    under the table. Then each gap with its 95% interval, paired where the items pair
    (generated twins) and unpaired otherwise (official `-cf` sets).
    """
    if not any(r.counterfactual for _, rs in runs for r in rs):
        return (
            "_No counterfactual results: run generated tasks with `--counterfactual on` "
            "(or both), or the official `-cf` tasks (`-t clutrr-cf`)._"
        )
    found = [(label, *_pairs(records)) for label, records in runs]
    families = sorted({key[1] for _, pairs, _ in found for key in pairs})
    rows = []
    for label, pairs, _ in found:
        for row in sorted({key[0] for key in pairs}, key=lambda r: (row_order(r[0]), r[1])):
            for side, name in ((0, "factual"), (1, "C.F.")):
                cells = [
                    percent(pair[side]) if (pair := pairs.get((row, f, q))) else "-"
                    for f in families
                    for q in TABLE_2_QUANTITIES
                ]
                rows.append([label, row[0].form.upper(), _answer(row), name, *cells])
    notes = [_shots_note(found), _alone_note(found)]
    if not rows:
        notes.insert(0, "_No counterfactual cell has a factual counterpart in the same run._")
        return "\n\n".join(n for n in notes if n)
    header = ["model", "form", "answer", "rules are"]
    header += [f"{f} {q}" for f in families for q in ("Golden", "Few")]
    parts = [table(header, rows), *notes, _factuality_gaps(runs)]
    return "\n\n".join(p for p in parts if p)


def paper_shots(task: str) -> int | None:
    """The demonstrations the paper's design gives a task; None for a task rulebench lacks."""
    try:
        return task_definition(family(task)).paper_shots
    except ConfigError:
        return None


def _shots_text(cell: Cell) -> str:
    if cell.shots and cell.shots == paper_shots(cell.task):
        return PAPER_SHOTS
    return f"{cell.shots}-shot"


def _answer(row: Row) -> str:
    """The answer label with the row's shots ("CoT, paper shots")."""
    cell, shots = row
    return answer_label(cell).replace("0-shot", shots, 1)


def paper_answer_label(cell: Cell) -> str:
    """`answer_label` with "paper shots" for the paper's demonstration count of the cell's task.

    Cells of several tasks run with the paper's design then share one label, although its
    shot count differs by dataset (clutrr 2, ulogic 1).
    """
    return _answer((cell._replace(shots=0), _shots_text(cell)))


def _pairs(records: Sequence[Record]) -> tuple[Pairs, list[Cell]]:
    """Counterfactual cells with a factual counterpart, and those without one.

    The counterpart has the same quantity, form, CoT, shots, citation, layout and scoring, on
    the task itself (generated twins) or on the factual set of a `-cf` set. The row leaves out
    the shot count where it is the paper's, so clutrr's 2 and ulogic's 1 demonstration share it.
    """
    by = accuracy_by(records, cell_of)
    pairs: Pairs = {}
    alone = []
    for cell, value in by.items():
        if not cell.counterfactual or cell.quantity not in TABLE_2_QUANTITIES:
            continue
        factual = by.get(cell._replace(task=family(cell.task), counterfactual=False))
        if factual is None:
            alone.append(cell)
            continue
        row = cell._replace(task="", quantity="", counterfactual=False, shots=0)
        pairs[((row, _shots_text(cell)), family(cell.task), cell.quantity)] = (factual, value)
    return pairs, alone


def _shots_note(found: Sequence[tuple[str, Pairs, list[Cell]]]) -> str:
    """What "paper shots" stands for, per family shown with it."""
    shots = {
        family_name: paper_shots(family_name)
        for _, pairs, _ in found
        for (_, name), family_name, _ in pairs
        if name == PAPER_SHOTS
    }
    if not shots:
        return ""
    counts = ", ".join(f"{name} {count}" for name, count in sorted(shots.items()))
    return escape_markdown(
        f"{PAPER_SHOTS}: the demonstrations the paper gives each dataset ({counts}); "
        "a pair always has the same number on both sides."
    )


def _alone_note(found: Sequence[tuple[str, Pairs, list[Cell]]]) -> str:
    """The counterfactual cells left out for want of a factual counterpart in their run."""
    named = [
        f"{label}: {c.task} {c.quantity} {c.form.upper()} {answer_label(c)}"
        for label, _, alone in found
        for c in sorted(alone, key=row_order)
        if not c.cite_rule
    ]
    cited = any(c.cite_rule for _, _, alone in found for c in alone)
    parts = []
    if named:
        parts.append(
            "Counterfactual cells without a factual counterpart in the same run (same "
            f"quantity, form, CoT and shots), left out: {'; '.join(named)}."
        )
    if cited:
        parts.append(
            "Counterfactual cells that cite rules (the behaviour analysis) are under "
            "Triggering vs execution errors."
        )
    return escape_markdown(" ".join(parts))


def _factuality_gaps(runs: Runs) -> str:
    rows = []
    for label, records in runs:
        for cell, found in factuality_comparisons(records).items():
            if cell.quantity in TABLE_2_QUANTITIES:
                rows.append(
                    [
                        label,
                        f"{found.factual_task} / {found.counterfactual_task}",
                        cell.quantity,
                        cell.form.upper(),
                        answer_label(cell),
                        percent(found.factual),
                        percent(found.counterfactual),
                        delta_points(found.delta),
                        delta_matching(found.delta),
                    ]
                )
    if not rows:
        return ""
    header = ["model", "tasks", "rules", "form", "answer", "factual %", "C.F. %"]
    header += ["C.F. - factual (points) [95% CI]", "items"]
    note = (
        "Generated twins pair item by item (paired interval); the official `-cf` sets are "
        "separate datasets, compared as independent groups (unpaired)."
    )
    return f"{table(header, rows)}\n\n{note}"
