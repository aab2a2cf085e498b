"""The status of a run joined from shards: completed only when every shard is in, whole.

Kept apart from the merge's SQL: pure bookkeeping over a joined run's notes, which
`runs show` also reads to name the shards still missing and how to run them.
"""

from pydantic import JsonValue


def merged_status(
    notes: dict[str, JsonValue], shard: dict[str, JsonValue], ok_items: int
) -> dict[str, JsonValue]:
    """The joined run's notes once `shard` is in, with its "status" and, if partial, "reason".

    Of two runs of one shard (one failed, then run again as a new run), a completed one wins,
    else the later one.

    Args:
        notes: the joined run's notes so far.
        shard: the shard run's place (index, count, whole_items), run id, status and store.
        ok_items: results of the joined run without error, this shard's included.
    """
    shards = dict(_shards(notes))
    key = str(shard.get("index"))
    old = shards.get(key)
    if not isinstance(old, dict) or shard["status"] == "completed" or old["status"] != "completed":
        shards[key] = shard
    count = shard.get("count")
    whole = next(
        (s["whole_items"] for s in shards.values() if isinstance(s, dict) and "whole_items" in s),
        None,
    )
    fresh: dict[str, JsonValue] = {
        name: value for name, value in notes.items() if name not in ("reason",)
    }
    fresh |= {"shards": shards, "shard_count": count, "whole_items": whole}
    reason = _why_partial(shards, count, whole, ok_items)
    fresh["status"] = "partial" if reason else "completed"
    if reason:
        fresh["reason"] = reason
    return fresh


def _shards(notes: dict[str, JsonValue]) -> dict[str, JsonValue]:
    shards = notes.get("shards")
    return shards if isinstance(shards, dict) else {}


def missing_shards(notes: dict[str, JsonValue]) -> list[int]:
    """The indexes (1-based) of the shards a joined run has not received yet."""
    count = notes.get("shard_count")
    if not isinstance(count, int):
        return []
    have = _shards(notes)
    return [index for index in range(1, count + 1) if str(index) not in have]


def unfinished_shards(notes: dict[str, JsonValue]) -> list[dict[str, JsonValue]]:
    """The shard runs merged before they completed: resume each in its own store."""
    return [
        shard
        for shard in _shards(notes).values()
        if isinstance(shard, dict) and shard.get("status") != "completed"
    ]


def _why_partial(
    shards: dict[str, JsonValue], count: JsonValue, whole: JsonValue, ok_items: int
) -> str:
    notes: dict[str, JsonValue] = {"shards": shards, "shard_count": count}
    if missing := missing_shards(notes):
        named = ", ".join(f"{index}/{count}" for index in missing)
        return f"not merged yet: shard {named}"
    if unfinished := unfinished_shards(notes):
        named = ", ".join(f"{s.get('index')}/{count} ({s.get('status')})" for s in unfinished)
        return f"shards not completed: {named}"
    if not isinstance(whole, int) or ok_items != whole:
        return f"{ok_items} of {whole} items have a result without error"
    return ""
