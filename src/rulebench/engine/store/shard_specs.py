"""Shards of one run started with different options: found, and the differing field named.

Two sharded runs of one task, model and shard count whose specs differ are normally two
runs (a sweep over `--max-tokens`, say), and the merge keeps them apart. They are a mistake
when together they fit exactly one whole run: no spec has every shard by itself, no shard
index is held under two specs, and between them every index is there. That is what a node
started with a mistyped option looks like, and merging it would leave two runs, each partial,
that never complete. Pure: the merge passes the joined runs it holds.
"""

import json
from collections.abc import Sequence

from pydantic import JsonValue

from rulebench.engine.store.records import RunRecord

UNKEYED = ("base_url", "concurrency", "adaptive_concurrency", "order", "shard")
"""Spec fields the shards of one run may differ in: where and how fast, never what ran."""


def keyed_spec(config: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The part of a run's spec that says what ran: what the shards of one run share."""
    return {name: value for name, value in config.items() if name not in UNKEYED}


def mixed_specs(joined: Sequence[RunRecord]) -> str | None:
    """Why some of these joined runs are the shards of one run with differing options, or None.

    Args:
        joined: runs a merge joined from shards (their notes hold "shards" and "shard_count").
    """
    groups: dict[tuple[str, str, int], list[RunRecord]] = {}
    for run in joined:
        count = run.notes.get("shard_count")
        if isinstance(count, int):
            groups.setdefault((run.task, run.model, count), []).append(run)
    for (task, model, count), runs in sorted(groups.items()):
        if len(runs) > 1 and _fit_one_whole([_indexes(run) for run in runs], count):
            return _named(task, model, count, runs[0], runs[1])
    return None


def maybe_mixed_specs(joined: Sequence[RunRecord]) -> list[str]:
    """A warning for each set of partial sharded runs that may be one run's mistyped shards.

    Shards that do not yet fit one whole run cannot be told from the start of a sweep, so
    they are merged as the runs they are; this says what to check, one line per such set.
    """
    groups: dict[tuple[str, str, int], list[RunRecord]] = {}
    for run in joined:
        count = run.notes.get("shard_count")
        if isinstance(count, int):
            groups.setdefault((run.task, run.model, count), []).append(run)
    warnings = []
    for (task, model, count), runs in sorted(groups.items()):
        indexes = [_indexes(run) for run in runs]
        every = {str(index) for index in range(1, count + 1)}
        union = set().union(*indexes)
        disjoint = sum(map(len, indexes)) == len(union)
        if len(runs) > 1 and disjoint and union != every:
            path, one, other = differing_field(
                keyed_spec(runs[0].config), keyed_spec(runs[1].config)
            )
            warnings.append(
                f"runs {', '.join(run.id for run in runs)} ({task} on {model}, {count} shards) "
                f"hold different shards and differ in {path} ({one} and {other}): if they are "
                "the shards of one run, run the mistyped ones again with the same options"
            )
    return warnings


def _indexes(run: RunRecord) -> set[str]:
    shards = run.notes.get("shards")
    return set(shards) if isinstance(shards, dict) else set()


def _fit_one_whole(index_sets: list[set[str]], count: int) -> bool:
    every = {str(index) for index in range(1, count + 1)}
    if any(indexes == every for indexes in index_sets):
        return False
    union = set().union(*index_sets)
    return union == every and sum(map(len, index_sets)) == len(union)


def _named(task: str, model: str, count: int, first: RunRecord, second: RunRecord) -> str:
    """One line: which run, which field, its two values, and the shards holding each."""
    path, one, other = differing_field(keyed_spec(first.config), keyed_spec(second.config))
    return (
        f"the shards of one run ({task} on {model}, {count} shards) were started with "
        f"different options: {path} is {one} in shard {_shard_list(first)} but {other} in "
        f"shard {_shard_list(second)}; run those shards again with the same options (only "
        f"{', '.join(UNKEYED)} may differ), each into its own store"
    )


def _shard_list(run: RunRecord) -> str:
    shards = run.notes.get("shards")
    if not isinstance(shards, dict):
        return "?"
    named = []
    for key in sorted(shards, key=lambda key: key.zfill(9)):  # '10' after '9'
        entry = shards[key]
        source = entry.get("run") if isinstance(entry, dict) else None
        named.append(f"{key}/{run.notes.get('shard_count')} (run {source})")
    return ", ".join(named)


def differing_field(one: JsonValue, other: JsonValue, path: str = "") -> tuple[str, str, str]:
    """The first dotted field where two specs differ, and its value in each (JSON)."""
    if isinstance(one, dict) and isinstance(other, dict):
        for name in sorted(set(one) | set(other)):
            if one.get(name) != other.get(name):
                return differing_field(one.get(name), other.get(name), f"{path}.{name}")
    return path.lstrip(".") or "spec", _shown(one), _shown(other)


def _shown(value: JsonValue) -> str:
    return json.dumps(value, sort_keys=True)[:80]
