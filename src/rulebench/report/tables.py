"""Terminal tables for run summaries and run listings (rich renderables; the CLI prints them).

Every cell and title holding stored text (run ids, model specs, group names from data files)
is a `Text` with controls escaped: a str cell would be parsed as rich markup.
"""

import math
from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from rulebench.core.stats import Proportion
from rulebench.engine.store.records import RunRecord
from rulebench.engine.summary import GroupSummary
from rulebench.report.untrusted import safe_text


def _rate(value: Proportion | None) -> str:
    if value is None or not value.n:
        return "-"
    return f"{100 * value.value:.1f} [{100 * value.low:.1f}-{100 * value.high:.1f}]"


def summary_table(rows: Sequence[GroupSummary], title: str, group_label: str) -> Table:
    """Accuracy and/or pass rate with 95% CIs, errors and tokens; one row per group, then all.

    A rate column appears only when some group has it (questions score, scenarios pass).
    `title` and `group_label` are plain text (they quote run ids and model specs), not markup.
    """
    table = Table(
        title=safe_text(title, style="table.title"),  # a Text title keeps only its own style
        title_justify="left",
        caption=r"\[lo-hi]: 95% confidence interval (Wilson)",
        caption_justify="left",
    )
    rates = [
        (name, pick)
        for name, pick in (("accuracy %", _accuracy), ("pass %", _pass_rate))
        if any(pick(row) is not None for row in rows)
    ]
    # At 80 columns the widest cells give way, never a count: group labels and intervals wrap
    # at their spaces (a long label with none folds), numbers are never cut short.
    table.add_column(safe_text(group_label), overflow="fold")
    table.add_column("items", justify="right", no_wrap=True)
    table.add_column("errors", justify="right", no_wrap=True)
    for name, _ in rates:
        # Wide enough for a whole interval ("[34.2-100.0]"), which has no space to wrap at.
        table.add_column(name, justify="right", min_width=12)
    # Only a run with thinking cut short has the column: its rows' rates include replies
    # with no answer, which must not be read as wrong answers or as rules kept.
    is_cut = any(row.reasoning_unfinished for row in rows)
    if is_cut:
        # A short header: the table fits 80 columns with both rates and whole intervals.
        table.add_column("cut", justify="right", no_wrap=True)
        table.caption = f"{table.caption}; cut: replies whose thinking the reply limit cut short"
    table.add_column("tokens\nin/out", justify="right", no_wrap=True)
    for row in rows:
        cut = [Text(str(row.reasoning_unfinished), style="yellow")] if is_cut else []
        table.add_row(
            safe_text(row.group),
            str(row.items),
            Text(str(row.errors), style="red" if row.errors else ""),
            *[_rate(pick(row)) for _, pick in rates],
            *cut,
            f"{row.prompt_tokens}/{row.completion_tokens}",
            end_section=row is rows[-2] if len(rows) > 1 else False,
        )
    return table


def format_usd(amount: float) -> str:
    """A cost to the cent; below a cent (a few test items) to two significant digits."""
    amount = amount if amount >= 0.01 else float(f"{amount:.2g}")
    if amount >= 0.01 or amount == 0:
        return f"${amount:,.2f}"
    return f"${amount:.{1 - math.floor(math.log10(amount))}f}"


def replies(count: int) -> str:
    """'1 reply', '2 replies': counts in prose read as prose."""
    return f"{count:,} reply" if count == 1 else f"{count:,} replies"


def usage_line(total: GroupSummary) -> str:
    """A run's tokens in one line: generated, from the cache, scored, and the cost if priced.

    Kept out of the summary table, which must fit 80 columns with whole intervals.
    """
    parts = [f"tokens {total.prompt_tokens:,} in / {total.completion_tokens:,} out"]
    if total.reasoning_tokens:
        parts[0] += f" ({total.reasoning_tokens:,} of them thinking)"
    if total.cache_hits:
        parts.append(
            f"{total.cached_prompt_tokens:,} in / {total.cached_completion_tokens:,} out "
            f"from the cache ({replies(total.cache_hits)})"
        )
    if total.scoring_tokens:
        parts.append(f"{total.scoring_tokens:,} read for log-likelihood scoring")
    if total.cost_usd is not None:
        parts.append(f"cost {format_usd(total.cost_usd)}")
    return "; ".join(parts)


def _accuracy(row: GroupSummary) -> Proportion | None:
    return row.accuracy


def _pass_rate(row: GroupSummary) -> Proportion | None:
    return row.pass_rate


def runs_table(runs: Sequence[tuple[RunRecord, str, dict[str, int]]]) -> Table:
    """One line per run: id, task, model, status and result counts.

    Fits 80 columns with whole ids: a run id starts with its UTC start time, so there is no
    separate start column, and only the model spec wraps.
    """
    table = Table(title="Runs (an id starts with the run's UTC start time)", title_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("task", no_wrap=True)
    table.add_column("model", overflow="fold")
    table.add_column("status", no_wrap=True)
    table.add_column("ok", justify="right", no_wrap=True)
    table.add_column("errors", justify="right", no_wrap=True)
    for run, status, counts in runs:
        colour = {"completed": "green", "running": "yellow"}.get(status, "red")
        table.add_row(
            safe_text(run.id),
            safe_text(run.task),
            safe_text(run.model),
            safe_text(status, style=colour),
            str(counts["ok"]),
            str(counts["error"]),
        )
    return table
