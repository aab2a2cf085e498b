"""Runs' configurations compared key by key: what tells runs apart, and two runs side by side.

Configs are redacted before anything is compared or shown (`report.redaction`), and nested
settings are compared by their dotted path (`generate.temperature`), so a difference names the
setting rather than a whole block.
"""

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from pydantic import JsonValue

from rulebench.engine.store.records import RunRecord
from rulebench.report.redaction import redact_config, redact_text

LABEL_SKIPS = frozenset({"task", "model"})
"""Settings a label leaves out: the list shows the task, and the label starts with the model."""
LABEL_SETTINGS = 4
"""Differing settings a label names before it says how many more there are."""
LABEL_VALUE_CHARS = 48
"""What a label shows of one setting's value (a long reply text is cut); the run page has all."""
_ABSENT = "(not set)"


class DiffRow(NamedTuple):
    """One setting of two runs' configurations."""

    key: str
    first: str
    second: str
    differs: bool


def flat_config(config: dict[str, JsonValue]) -> dict[str, str]:
    """Dotted path -> the value as JSON text, for every leaf of a redacted config.

    Lists are leaves: a list of suites differs as a whole. An empty block (`model_args={}`)
    has no leaf: it sets nothing, so it is the same as a block left out.
    """
    found: dict[str, str] = {}

    def walk(value: JsonValue, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else key)
        else:
            found[path] = json.dumps(value, ensure_ascii=False, sort_keys=True)

    walk(redact_config(config), "")
    return found


def diff_rows(first: RunRecord, second: RunRecord) -> list[DiffRow]:
    """Every setting of either run, in order, with whether the two differ there."""
    a, b = flat_config(first.config), flat_config(second.config)
    keys = list(a) + [key for key in b if key not in a]
    return [
        DiffRow(key, a.get(key, _ABSENT), b.get(key, _ABSENT), a.get(key) != b.get(key))
        for key in keys
    ]


def run_labels(runs: Sequence[RunRecord]) -> dict[str, str]:
    """Run id -> a label that tells the run from the others of its task among `runs`.

    The model, then the settings whose values differ among those runs, those that tell the
    runs apart first (`telling_order`), then the prompts' wording where the run records one
    (`report.run_wording`). Runs are grouped by task once, so a list of N runs reads each
    config a few times, never N times (the list takes 10,000).
    """
    from rulebench.report.run_wording import run_wording

    by_task: dict[str, list[RunRecord]] = defaultdict(list)
    for run in runs:
        by_task[run.task].append(run)
    labels = {}
    for group in by_task.values():
        columns = _columns([flat_config(run.config) for run in group])
        keys = telling_order(columns)
        for index, run in enumerate(group):
            settings = [f"{key}={_cut(columns[key][index])}" for key in keys]
            shown = settings[:LABEL_SETTINGS]
            if len(settings) > LABEL_SETTINGS:
                shown.append(f"+{len(settings) - LABEL_SETTINGS} more")
            wording = run_wording(run)
            parts = [redact_text(run.model), *shown, *([wording.label] if wording else [])]
            labels[run.id] = " · ".join(parts)
    return labels


def _columns(configs: Sequence[dict[str, str]]) -> dict[str, list[str]]:
    """Each differing setting (`differing_keys`) -> its value in each config, in order."""
    keys = set(differing_keys(configs))
    columns: dict[str, list[str]] = {key: [_ABSENT] * len(configs) for key in keys}
    for index, config in enumerate(configs):
        for key, value in config.items():
            if key in keys:
                columns[key][index] = value
    return columns


def _cut(value: str) -> str:
    return value if len(value) <= LABEL_VALUE_CHARS else value[: LABEL_VALUE_CHARS - 1] + "…"


def telling_order(columns: dict[str, list[str]]) -> list[str]:
    """The settings in the order a label names them: those that tell the runs apart first.

    First the settings that alone tell some two runs apart (`_essential`), then the others;
    within each, greedily the one that splits the most pairs of runs still alike, until all
    runs are told apart (or LABEL_SETTINGS are chosen); the rest follow by name. So two runs
    that differ only in their tasks lead with the tasks, whatever else other runs change.
    """
    count = len(next(iter(columns.values()), []))
    essential = _essential(columns, count)
    groups = [list(range(count))]
    chosen: list[str] = []
    for pool in (sorted(essential), sorted(set(columns) - essential)):
        while pool and len(chosen) < LABEL_SETTINGS and any(len(group) > 1 for group in groups):
            split = {key: _pairs_split(groups, columns[key]) for key in pool}
            best = max(pool, key=split.__getitem__)  # the first by name among equals
            if not split[best]:
                break
            chosen.append(best)
            pool.remove(best)
            groups = [part for group in groups for part in _split(group, columns[best])]
    return chosen + sorted(set(columns) - set(chosen))


def _essential(columns: dict[str, list[str]], count: int) -> set[str]:
    """The settings that are all that tells some two runs apart (alike in every other one).

    Each run's other settings are summed as hashes, so this takes one pass per setting, not
    one per pair of runs; a hash collision could only reorder a label, never merge two.
    """
    hashed = {key: [hash((key, value)) for value in values] for key, values in columns.items()}
    totals = [sum(values[index] for values in hashed.values()) for index in range(count)]
    found = set()
    for key, values in columns.items():
        others: dict[int, str] = {}
        for index, value in enumerate(values):
            if others.setdefault(totals[index] - hashed[key][index], value) != value:
                found.add(key)
                break
    return found


def _pairs_split(groups: Sequence[list[int]], values: Sequence[str]) -> int:
    """How many pairs of runs, alike so far (in one group), differ in `values`."""
    split = 0
    for group in groups:
        counts = Counter(values[index] for index in group)
        split += (len(group) ** 2 - sum(count**2 for count in counts.values())) // 2
    return split


def _split(group: list[int], values: Sequence[str]) -> list[list[int]]:
    parts: dict[str, list[int]] = defaultdict(list)
    for index in group:
        parts[values[index]].append(index)
    return list(parts.values())


def differing_keys(configs: Sequence[dict[str, str]]) -> list[str]:
    """The settings (LABEL_SKIPS aside) whose values are not the same in all `configs`, sorted.

    A setting some configs lack differs (absent is a value of its own).
    """
    first: dict[str, str] = {}
    seen: dict[str, int] = defaultdict(int)
    found: set[str] = set()
    for config in configs:
        for key, value in config.items():
            seen[key] += 1
            if first.setdefault(key, value) != value:
                found.add(key)
    found |= {key for key, count in seen.items() if count < len(configs)}
    return sorted(found - LABEL_SKIPS)
