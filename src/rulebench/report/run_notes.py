"""What a reader must know before trusting a report's numbers: runs that did not finish.

A stopped or failed run holds only the items it finished, so its rates describe a subset of
the task; the report says so at its top and the CLI on stderr, rather than letting the numbers
pass for the whole suite. So does a run that left out cells its upstream clone cannot build.
"""

from collections.abc import Sequence

from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.summary import summarize
from rulebench.report.markdown import escape_markdown


def run_warnings(store: Store, run: RunRecord) -> list[str]:
    """One line per problem of a reported run: not completed, error results."""
    warnings = []
    status = store.effective_status(run)
    counts = store.count_results(run.id)
    if status != "completed":
        warnings.append(
            f"run {run.id} is {status}, not completed: these numbers cover only the "
            f"{counts['ok']} items it finished (rulebench run --resume {run.id} finishes it)"
        )
    if counts["error"]:
        warnings.append(
            f"run {run.id} has {counts['error']} error results, left out of the scores "
            "(neither right nor wrong)"
        )
    return warnings + _unfinished_thinking(store, run) + _skipped_cells(run)


def _unfinished_thinking(store: Store, run: RunRecord) -> list[str]:
    """A line when replies' thinking was cut by the reply limit: they have no answer."""
    [total] = summarize(store.tally_results(run.id), grouped=False)
    if not total.reasoning_unfinished:
        return []
    return [
        f"run {run.id} has {total.reasoning_unfinished} replies whose thinking the reply limit "
        "cut short: they have no answer, so their scores and verdicts say nothing about the "
        "model's answers or rules (raise max_tokens)"
    ]


def _skipped_cells(run: RunRecord) -> list[str]:
    """One line per cell an inferential run left out (its clone's upstream code fails there)."""
    config = run.config.get("task_config")
    if run.task != "inferential" or not isinstance(config, dict):
        return []
    from rulebench.inferential.upstream.stored import stored_skipped

    return [f"run {run.id} {cell.line()}" for cell in stored_skipped(config)]


def warning_block(warnings: Sequence[str]) -> str:
    """The warnings as Markdown quote lines, for the top of a report ("" when none)."""
    return "\n\n".join(f"> **Warning:** {escape_markdown(w)}" for w in warnings)
