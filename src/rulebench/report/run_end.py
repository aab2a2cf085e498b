"""What a run's command says once the run ends: its JSON, its pace, why it stopped short.

The same words for every command that runs something (`rulebench run ...`, batches), as
plain text a front end escapes before rendering.
"""

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import JsonValue

from rulebench.engine.run_errors import is_error_tally
from rulebench.report.prices import price_json
from rulebench.report.tables import replies

if TYPE_CHECKING:
    from rulebench.core.pricing import Price, PriceTable
    from rulebench.engine.runner import RunReport
    from rulebench.engine.summary import GroupSummary


def run_end_json(
    report: "RunReport",
    rows: Sequence["GroupSummary"],
    price: "Price | None",
    table: "PriceTable | None",
) -> dict[str, JsonValue]:
    """The ended run as --json prints it: its record, summary, wall time and prices."""
    return {
        "run": report.run.model_dump(mode="json"),
        "summary": [row.model_dump(mode="json") for row in rows],
        "wall_s": report.wall_s,
        "prices": None if price is None else price_json(price, table),
    }


def pace_line(report: "RunReport", store: Path) -> str:
    """Items run now and how fast, those finished earlier or cached, the status and store."""
    rate = report.completed_now / report.wall_s if report.wall_s > 0 else 0.0
    return (
        f"{report.completed_now} items in {report.wall_s:.1f}s ({rate:,.1f} items/s)"
        + (f", {report.skipped} finished earlier" if report.skipped else "")
        + (f", {replies(report.cache_hits_now)} from the cache" if report.cache_hits_now else "")
        + f"; status: {report.run.status}; store: {store}"
    )


def stopped_reason(report: "RunReport") -> str | None:
    """Why the run did not complete; None when it did, or when its error lines say why."""
    run = report.run
    reason = str(run.notes.get("reason") or "")
    if run.status != "completed" and reason and not is_error_tally(reason):
        return reason
    return None


def thinking_cut_line(count: int, config: Mapping[str, object]) -> str:
    """The run-end line for replies the reply limit cut while the model was still thinking."""
    generate = config.get("generate")
    limit = generate.get("max_tokens") if isinstance(generate, dict) else None
    now = f" (now {limit})" if isinstance(limit, int) else ""
    have = "has" if count == 1 else "have"
    return (
        f"{replies(count)} ran out of tokens while thinking and {have} no answer: "
        f"raise --max-tokens{now}"
    )
