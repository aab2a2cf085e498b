"""Tokens and cost of the runs in a report: one row per run, read from the stored results."""

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path

from pydantic import JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.pricing import PriceTable, parse_prices
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.summary import GroupSummary, Tally, priced, summarize
from rulebench.report.document import Section
from rulebench.report.markdown import escape_markdown, table
from rulebench.report.tables import format_usd

HEADING = "Tokens and cost"


def load_prices(path: Path) -> PriceTable:
    """Read a price table from TOML (or JSON, by suffix), naming the file and entry on error."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        cause = exc.strerror if isinstance(exc, OSError) else exc.reason
        raise ConfigError(f"price table {path}: cannot read it ({cause or exc})") from None
    is_json = path.suffix.lower() == ".json"
    try:
        data = json.loads(text) if is_json else tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError is a ValueError
        kind = "JSON" if is_json else "TOML"
        raise ConfigError(f"price table {path}: not valid {kind}: {exc}") from None
    return parse_prices(data, str(path))


def run_totals(store: Store, run: RunRecord, prices: PriceTable | None) -> GroupSummary:
    """A run's token totals (every result, resumed parts included), priced when possible."""
    return totals_of(store.tally_results(run.id), run, prices)


def totals_of(tallies: Sequence[Tally], run: RunRecord, prices: PriceTable | None) -> GroupSummary:
    """`run_totals` from the run's tallies (`Store.tally_results`), where a caller has them."""
    [total] = summarize(tallies, grouped=False)
    price = prices.price_for(run.model) if prices else None
    [total] = priced([total], price)
    return total


def usage_json(total: GroupSummary) -> dict[str, JsonValue]:
    """What a JSON report says of a run's tokens and cost."""
    return {
        "prompt_tokens": total.prompt_tokens,
        "completion_tokens": total.completion_tokens,
        "cached_prompt_tokens": total.cached_prompt_tokens,
        "cached_completion_tokens": total.cached_completion_tokens,
        "scoring_tokens": total.scoring_tokens,
        "reasoning_tokens": total.reasoning_tokens,
        "reasoning_unfinished": total.reasoning_unfinished,
        "cache_hits": total.cache_hits,
        "cost_usd": total.cost_usd,
    }


def usage_section(
    labelled: Sequence[tuple[str, GroupSummary]], prices: PriceTable | None
) -> Section:
    """The report's table of tokens (generated, cached, scored) and cost per run.

    Runs of a reasoning model add their thinking tokens and their replies cut short in
    thinking; a report with none has the table it always had.
    """
    is_thinking = any(t.reasoning_tokens or t.reasoning_unfinished for _, t in labelled)
    thinking = ["thinking out", "cut"] if is_thinking else []
    header = [
        "run",
        "tokens in",
        "tokens out",
        *thinking,
        "cached in",
        "cached out",
        "scored",
        "cost USD",
    ]
    rows = [_usage_row(label, total, is_thinking) for label, total in labelled]
    return Section(HEADING, f"{table(header, rows)}\n\n{_usage_note(is_thinking, prices)}")


def _usage_row(label: str, total: GroupSummary, is_thinking: bool) -> list[str]:
    """One run's row of the usage table (its thinking columns only where a run thought)."""
    thinking = [f"{total.reasoning_tokens:,}", f"{total.reasoning_unfinished:,}"]
    return [
        label,
        f"{total.prompt_tokens:,}",
        f"{total.completion_tokens:,}",
        *(thinking if is_thinking else []),
        f"{total.cached_prompt_tokens:,}",
        f"{total.cached_completion_tokens:,}",
        f"{total.scoring_tokens:,}",
        "-" if total.cost_usd is None else format_usd(total.cost_usd),
    ]


def _usage_note(is_thinking: bool, prices: PriceTable | None) -> str:
    """What the usage table's columns count, and the prices its costs are at."""
    note = (
        "Tokens in/out were read and written by the model; cached ones came from the response "
        "cache (no request sent, no cost); scored ones were read to score choices by "
        "log-likelihood (priced as input)."
    )
    if is_thinking:
        note += (
            " Thinking out: the tokens of tokens out the model spent thinking (priced as "
            "output); cut: replies whose thinking the reply limit cut short, so they have no "
            "answer."
        )
    if prices is None:
        return note + " No price table was given (`--prices` or `--price-in/--price-out`): no cost."
    return note + f" Prices: {escape_markdown(prices.source)}."
