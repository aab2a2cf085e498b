"""What a scenarios run says before it starts: its cases, protocol and replay notes.

Front ends print these lines (`run scenarios`); they are composed from the cases the run
loaded once (`run_cases.RunCases`), so no line reads a file again.
"""

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from rulebench.core.cases import TestCase
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.played import overridden, records, replayed_protocol
from rulebench.scenarios.run_cases import GENERATED_SUITES, RunCases
from rulebench.scenarios.sizes import FULL_MAX_TOKENS, REPLY_LIMITS, Size
from rulebench.scenarios.suffix import suffix_label


def replay_notes(
    config: ScenarioConfig, given: Mapping[str, object], cases: Sequence[TestCase]
) -> list[str] | None:
    """Each given setting that replaces a different one recorded by a saved case to replay.

    None when no case to run carries a record (nothing replays as recorded).
    """
    found = [] if config.is_generated_only() else records(cases)
    if all(record is None for record in found):
        return None
    return overridden(found, given)


class SavedWordings(NamedTuple):
    """How the saved cases of a run replay, as the run's first line names them."""

    labels: tuple[str, ...]
    """Each distinct replayed protocol, its wording included ("user, reminders, compat,
    prompts: upstream (clone at commit 1a2b3c4d)")."""
    every_case: bool
    """Every case to run is a saved case with a record (no case runs in the given protocol)."""


def saved_wordings(config: ScenarioConfig, cases: Sequence[TestCase]) -> SavedWordings:
    """The protocols, wording included, that the saved cases to run replay with."""
    found = [] if config.is_generated_only() else records(cases)
    labels: dict[str, None] = {}
    for record in found:
        if record is not None:
            played = replayed_protocol(record, config.protocol, config.overrides, config.upstream)
            wording = "" if played.prompts == "upstream" else f", {played.prompts_label()}"
            labels[played.label() + wording] = None
    every = bool(found) and all(r is not None for r in found) and not config.has_generated()
    return SavedWordings(tuple(labels), every)


def run_line(
    config: ScenarioConfig, loaded: RunCases, max_tokens: int | None, notes: list[str] | None
) -> str:
    """The one line a run starts with: "cases: ...; protocol: ..." (suffix, --full hint).

    Args:
        config: the run's config.
        loaded: its cases.
        max_tokens: the reply limit the run names (`--max-tokens`, a preset's), if any.
        notes: `replay_notes` (None: no saved case replays as recorded).
    """
    sizes = config.suite_sizes(loaded)
    return (
        cases_part(config, sizes, max_tokens, notes)
        + protocol_part(config, loaded.cases, notes)
        + suffix_part(config)
        + full_hint(config, sizes, max_tokens)
    )


def cases_part(
    config: ScenarioConfig,
    sizes: tuple[Size, ...],
    max_tokens: int | None,
    notes: list[str] | None,
) -> str:
    """How many cases, and each suite's reply limit where they differ, up to "protocol: "."""
    cap = config.per_group
    line = f"cases: {'all' if cap is None or not config.has_generated() else f'{cap} per behavior'}"
    limits = [REPLY_LIMITS[size] for size in sizes]
    if max_tokens is None and notes is None and len(set(limits)) > 1:
        per_suite = zip(limits, config.suites, strict=True)
        line += "; max_tokens " + ", ".join(f"{limit} for {suite}" for limit, suite in per_suite)
    return line + "; protocol: "


def protocol_part(
    config: ScenarioConfig, cases: Sequence[TestCase], notes: list[str] | None
) -> str:
    """The protocol given, or the saved cases' recorded ones (and the given one for others)."""
    protocol = config.protocol
    given = protocol.label() + (
        "" if protocol.prompts == "upstream" else f"; {protocol.prompts_label()}"
    )
    if notes is None:
        return given
    saved = saved_wordings(config, cases)  # saved cases replay in their recorded protocol
    line = f"saved cases as recorded ({'; '.join(saved.labels)})"
    return line + ("" if saved.every_case else f", others {given}")


def suffix_part(config: ScenarioConfig) -> str:
    """The run's suffix and where it came from, after "; " (nothing without one)."""
    if config.suffix is None:
        return ""
    return f"; {suffix_label(config.suffix, config.suffix_on, config.suffix_source)}"


def full_hint(config: ScenarioConfig, sizes: tuple[Size, ...], max_tokens: int | None) -> str:
    """Names --full while a generated suite is cut to its quick size.

    And the official size's limit, unless the run names one (`--max-tokens`, or a preset's).
    """
    by_suite = zip(config.suites, sizes, strict=True)
    if all(size == "official" for suite, size in by_suite if suite in GENERATED_SUITES):
        return ""
    limit = f" and max_tokens {FULL_MAX_TOKENS}" if max_tokens is None else ""
    return f" (--full for the official sizes{limit})"
