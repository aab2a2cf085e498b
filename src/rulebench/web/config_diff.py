"""Runs' configurations compared key by key: what tells runs apart, and two runs side by side.

Configs are redacted before anything is compared or shown (`report.redaction`), and nested
settings are compared by their dotted path (`generate.temperature`), so a difference names the
setting rather than a whole block.
"""

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from pydantic import JsonValue

from rulebench.engine.records import RunRecord
from rulebench.report.redaction import redact_config, redact_text

LABEL_SKIPS = frozenset({"task", "model"})
"""Settings a label leaves out: the list shows the task, and the label starts with the model."""
LABEL_SETTINGS = 4
"""Differing settings a label names before it says how many more there are."""
_ABSENT = "(not set)"


class DiffRow(NamedTuple):
    """One setting of two runs' configurations."""

    key: str
    first: str
    second: str
    differs: bool


def flat_config(config: dict[str, JsonValue]) -> dict[str, str]:
    """Dotted path -> the value as JSON text, for every leaf of a redacted config.

    Lists are leaves: a list of suites differs as a whole.
    """
    found: dict[str, str] = {}

    def walk(value: JsonValue, path: str) -> None:
        if isinstance(value, dict) and value:
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

    The model, then the settings whose values differ among those runs, then the prompts'
    wording where the run records one (`report.run_wording`). Runs are grouped by task once,
    so a list of N runs reads each config a few times, never N times (the list takes 10,000).
    """
    from rulebench.report.run_wording import run_wording

    flat = {run.id: flat_config(run.config) for run in runs}
    by_task: dict[str, list[dict[str, str]]] = defaultdict(list)
    for run in runs:
        by_task[run.task].append(flat[run.id])
    differing = {task: differing_keys(configs) for task, configs in by_task.items()}
    labels = {}
    for run in runs:
        mine = flat[run.id]
        settings = [f"{key}={mine.get(key, _ABSENT)}" for key in differing[run.task]]
        shown = settings[:LABEL_SETTINGS]
        if len(settings) > LABEL_SETTINGS:
            shown.append(f"+{len(settings) - LABEL_SETTINGS} more")
        wording = run_wording(run)
        parts = [redact_text(run.model), *shown, *([wording.label] if wording else [])]
        labels[run.id] = " · ".join(parts)
    return labels


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
