"""Report sections that put a run's accuracy beside a reference: long tail, prompt echo, repeats.

The long-tail view (paper appendix D) shows SALAD accuracy on the rarest labels; the prompt
echo shows what a reply that only repeats its prompt would score in each cell, so a cell
whose score the answer format alone can earn is flagged rather than read as rule following.
"""

from collections.abc import Mapping, Sequence

from rulebench.inferential.analysis import Record, accuracy_by, cell_of
from rulebench.inferential.echo_baseline import (
    ECHO_HIGH,
    EchoCell,
    EchoRecord,
    echo_cells,
    echo_flags,
)
from rulebench.inferential.long_tail import LONG_TAIL_SHARE, long_tail, long_tail_tasks
from rulebench.inferential.repeats import repeat_spread
from rulebench.report.inferential_cells import SETTING_HEADER, setting_columns
from rulebench.report.markdown import escape_markdown, percent, table

Runs = Sequence[tuple[str, list[Record]]]


def long_tail_section(runs: Runs) -> str:
    """Accuracy on all questions and on the long tail, per SALAD cell of every run."""
    rows = []
    for label, records in runs:
        for tail in long_tail(records).values():
            labels = f"{', '.join(tail.labels)} ({100 * tail.share:.1f}% of {tail.questions})"
            for cell, (everything, rare) in tail.cells.items():
                row = [label, *setting_columns(cell), labels]
                rows.append([*row, percent(everything), percent(rare)])
    if not rows:
        return (
            f"_No SALAD-format results ({', '.join(long_tail_tasks())}): the long-tail view "
            "needs their category labels._"
        )
    note = (
        "The long tail: the rarest gold labels that together make up at least "
        f"{100 * LONG_TAIL_SHARE:.0f}% of the questions (labels taken fewest first)."
    )
    header = ["model", *SETTING_HEADER, "long-tail labels (share of questions)"]
    return f"{note}\n\n{table([*header, 'all %', 'long tail %'], rows)}"


def echo_section(runs: Runs, echoes: Mapping[str, Sequence[EchoRecord]] | None, mode: str) -> str:
    """Each cell's accuracy beside that of a reply that only repeats the prompt."""
    if echoes is None:
        return "_Not computed for this report._"
    rows, flagged = [], 0
    for label, records in runs:
        model = accuracy_by(records, cell_of)
        for cell, echo in echo_cells(echoes.get(label, ())).items():
            check = _check(echo)
            flagged += check.startswith("CHECK")
            rows.append(
                [
                    label,
                    *setting_columns(cell),
                    percent(model.get(cell)),
                    percent(echo.paper),
                    percent(echo.robust),
                    check,
                ]
            )
    if not rows:
        return "_No generated replies to compare (log-likelihood runs read no replies)._"
    note = (
        "Each item re-judged with its reply replaced by its own prompt, in both extraction "
        f"modes. CHECK marks a mode where that echo scores at least {100 * ECHO_HIGH:.0f}% "
        "or surely above chance (the 95% interval's lower end above 1 / candidate answers): "
        "there the answer format, not the model, can earn the score. "
        f"{flagged} of {len(rows)} cells flagged."
    )
    header = ["model", *SETTING_HEADER, f"model % ({escape_markdown(mode)})"]
    header += ["echo paper %", "echo robust %", "echo check"]
    return f"{note}\n\n{table(header, rows)}"


def _check(echo: EchoCell) -> str:
    flags = echo_flags(echo)
    words = [
        f"{mode} ≥ {100 * ECHO_HIGH:.0f}%"
        if flag == "high"
        else f"{mode} above chance ({100 * (echo.chance or 0):.1f}%)"
        for mode, flag in flags.items()
    ]
    text = f"CHECK: {'; '.join(words)}" if words else "ok"
    return text if echo.complete else f"{text} (judged without candidate answers)"


def repeats_section(runs: Runs) -> str:
    """Accuracy per repeat, with its mean, standard deviation and range, per repeated cell."""
    rows = []
    for label, records in runs:
        for cell, spread in sorted(repeat_spread(records).items()):
            per_repeat = " / ".join(f"{100 * a:.1f}" for a in spread.accuracies)
            rows.append(
                [
                    label,
                    *setting_columns(cell),
                    per_repeat,
                    f"{100 * spread.mean:.1f}",
                    f"{100 * spread.std:.1f}",
                    f"{100 * spread.low:.1f}-{100 * spread.high:.1f}",
                ]
            )
    if not rows:
        return "_Single repeat: run with `--repeats N` (and a temperature above 0) to see it._"
    header = ["model", *SETTING_HEADER, "accuracy % per repeat", "mean", "std", "range"]
    return table(header, rows)
