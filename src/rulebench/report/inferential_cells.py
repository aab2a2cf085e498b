"""How inferential reports name a cell: its setting columns and how the model was asked.

Every table names CoT, shots, rule citation, rule layout and log-likelihood scoring in one
"answer" column, so two cells that differ in any of them never share a row.
"""

from rulebench.inferential.analysis import Cell

SETTING_HEADER = ["task", "rules", "form", "answer", "rules are"]

SCORING_LABELS = {
    "loglik": "log-likelihood",
    "loglik-norm": "log-likelihood per char",
}
"""How the answer column names a cell scored without generating (per cell: one run may hold
generated items beside log-likelihood ones)."""


def answer_label(cell: Cell) -> str:
    """How the model was asked to answer: "CoT, 2-shot", "direct, 0-shot, cites rule"..."""
    parts = ["CoT" if cell.cot else "direct", f"{cell.shots}-shot"]
    if cell.cite_rule:
        parts.append("cites rule")
    if cell.layout != "per-item":
        parts.append(f"{cell.layout} rule list")
    if cell.scoring != "generate":
        parts.append(SCORING_LABELS.get(cell.scoring, cell.scoring))
    return ", ".join(parts)


def factuality(cell: Cell) -> str:
    """The factuality column: C.F. for counterfactual rules, else factual."""
    return "C.F." if cell.counterfactual else "factual"


def setting_columns(cell: Cell) -> list[str]:
    """The cell under `SETTING_HEADER`."""
    return [cell.task, cell.quantity, cell.form.upper(), answer_label(cell), factuality(cell)]
