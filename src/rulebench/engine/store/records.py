"""How runs and item results map to rows of the store, and back."""

import json
import time
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict, JsonValue, field_validator

from rulebench.core.credentials import redact_url
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.core.text import repair_surrogates, surrogate_warning

RunStatus = Literal["running", "completed", "interrupted", "failed", "partial"]

RESULT_COLUMNS = (
    "run_id",
    "item_id",
    "status",
    "messages",
    "reply",
    "answer",
    "score",
    "passed",
    "reason",
    "details",
    "error",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "calls",
    "cache_hits",
    "system_merged",
    "metadata",
    "finished_at",
    "warnings",
    "cached_prompt_tokens",
    "cached_completion_tokens",
    "scoring_tokens",
    "endpoints",
    "reasoning",
    "reasoning_unfinished",
    "reasoning_tokens",
    "cached_reasoning_tokens",
    "attempts",
)

READ_DEFAULTS = {
    "reasoning": "NULL",
    "reasoning_unfinished": "0",
    "reasoning_tokens": "0",
    "cached_reasoning_tokens": "0",
    "attempts": "0",
}
"""Columns that a store opened read-only before the reasoning (or attempts) step lacks, and
what they read as: no reasoning, finished, no reasoning tokens, no attempts counted, as the
results were before those steps."""


def result_select(present: Collection[str] | None = None, prefix: str = "") -> tuple[str, ...]:
    """The SELECT expressions of RESULT_COLUMNS, in order, over a table with `present` columns.

    None: every column is there (a store migrated to this version). A missing column is
    read as its default, so a read-only store of an older version still reads.
    """
    return tuple(
        READ_DEFAULTS[column]
        if present is not None and column not in present and column in READ_DEFAULTS
        else f"{prefix}{column}"
        for column in RESULT_COLUMNS
    )


class RunRecord(BaseModel):
    """One evaluation as stored: what ran, with which model and configuration, and how it ended."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    task: str
    model: str
    config: dict[str, JsonValue]
    """The full configuration the run was started with; enough to rebuild it for --resume."""
    version: str
    """rulebench version that started the run."""
    started_at: str
    ended_at: str | None
    status: RunStatus
    pid: int | None
    """Process that last ran it; a "running" run whose process is gone was killed."""
    notes: dict[str, JsonValue]
    """Things a reader of the results must know (system-role fallback, ...)."""

    @field_validator("config")
    @classmethod
    def _redact_base_url(cls, config: dict[str, JsonValue]) -> dict[str, JsonValue]:
        # On the way in and out of the store: a run written by any caller, or by a version
        # that kept a query key in clear, never stores or shows the URL's secrets.
        base_url = config.get("base_url")
        if isinstance(base_url, str) and redact_url(base_url) != base_url:
            return {**config, "base_url": redact_url(base_url)}
        return config


def utc_now() -> str:
    """ISO-8601 timestamp in UTC, second precision, as every row stores it.

    Formatted once a second: a run stores two per item, thousands a second.
    """
    global _last_second  # one (second, text) pair, replaced whole: safe across threads
    second = int(time.time())
    last = _last_second
    if last[0] != second:
        text = datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")
        last = _last_second = (second, text)
    return last[1]


_last_second: tuple[int, str] = (-1, "")


def result_to_row(run_id: str, result: ItemResult) -> tuple[object, ...]:
    """Flatten a result into the column order of RESULT_COLUMNS.

    The reply is stored once, in `reply`: the transcript is stored without it and gets it back
    when read. Text SQLite cannot hold (lone surrogates) is repaired here as a last guard, and
    the repair recorded among the result's warnings.
    """
    outcome = result.outcome or Outcome()
    warnings = list(result.warnings)
    messages = result.messages
    if result.reply is not None and messages and _is_reply(messages[-1], result.reply):
        messages = messages[:-1]
    texts = _Repairer(warnings)
    return (
        run_id,
        result.item_id,
        result.status,
        _dumps([_turn(m, texts) for m in messages]),
        texts(result.reply, "reply"),
        texts(outcome.answer, "answer"),
        outcome.score,
        None if outcome.passed is None else int(outcome.passed),
        texts(outcome.reason, "reason"),
        _dumps(outcome.details),
        texts(result.error, "error"),
        result.usage.prompt_tokens,
        result.usage.completion_tokens,
        result.latency_s,
        result.calls,
        result.cache_hits,
        int(result.system_merged),
        _dumps(result.metadata),
        utc_now(),
        _dumps(warnings),
        result.cached_usage.prompt_tokens,
        result.cached_usage.completion_tokens,
        result.scoring_tokens,
        _dumps([texts(endpoint, "endpoint") for endpoint in result.endpoints]),
        texts(result.reasoning, "reasoning"),
        int(result.is_reasoning_unfinished),
        result.usage.reasoning_tokens,
        result.cached_usage.reasoning_tokens,
        result.attempts,
    )


def _turn(message: Message, texts: "_Repairer") -> dict[str, str]:
    """A stored turn: an earlier reply keeps its thinking (never sent back to the model)."""
    turn = {"role": message.role, "content": texts(message.content, "transcript")}
    if message.reasoning:
        turn["reasoning"] = texts(message.reasoning, "reasoning") or ""
    return turn


def _reply_message(reply: str, reasoning: str | None) -> Message:
    return Message(role="assistant", content=reply, reasoning=reasoning)


def _is_reply(message: Message, reply: str) -> bool:
    return message.role == "assistant" and message.content == reply


_ENCODE = json.JSONEncoder(allow_nan=False).encode
"""json.dumps(value, allow_nan=False) without building an encoder per call."""


def _dumps(value: object) -> str:
    # ASCII escapes keep any lone surrogate in nested JSON storable; NaN is refused at load.
    if not value and isinstance(value, dict | list):
        return "{}" if isinstance(value, dict) else "[]"
    return _ENCODE(value)


class _Repairer:
    """Repairs text fields of one row, noting each repair in the row's warnings."""

    def __init__(self, warnings: list[str]) -> None:
        self._warnings = warnings

    @overload
    def __call__(self, text: str, where: str) -> str: ...
    @overload
    def __call__(self, text: None, where: str) -> None: ...
    @overload
    def __call__(self, text: str | None, where: str) -> str | None: ...

    def __call__(self, text: str | None, where: str) -> str | None:
        if text is None:
            return None
        repaired, count = repair_surrogates(text)
        if count:
            self._warnings.append(surrogate_warning(count, where))
        return repaired


def row_to_result(row: Any) -> ItemResult:
    """Rebuild an ItemResult from a row selected with RESULT_COLUMNS (sqlite3.Row or tuple)."""
    values = dict(zip(RESULT_COLUMNS, row, strict=True))
    messages = tuple(Message(**m) for m in json.loads(values["messages"]))
    if values["reply"] is not None:
        messages = (*messages, _reply_message(values["reply"], values["reasoning"]))
    outcome = None
    if values["status"] == "ok":
        outcome = Outcome(
            answer=values["answer"],
            score=values["score"],
            passed=None if values["passed"] is None else bool(values["passed"]),
            reason=values["reason"],
            details=json.loads(values["details"]),
        )
    return ItemResult(
        item_id=values["item_id"],
        messages=messages,
        reply=values["reply"],
        reasoning=values["reasoning"],
        is_reasoning_unfinished=bool(values["reasoning_unfinished"]),
        outcome=outcome,
        error=values["error"],
        usage=Usage(
            prompt_tokens=values["prompt_tokens"],
            completion_tokens=values["completion_tokens"],
            reasoning_tokens=values["reasoning_tokens"],
        ),
        cached_usage=Usage(
            prompt_tokens=values["cached_prompt_tokens"],
            completion_tokens=values["cached_completion_tokens"],
            reasoning_tokens=values["cached_reasoning_tokens"],
        ),
        scoring_tokens=values["scoring_tokens"],
        latency_s=values["latency_s"],
        calls=values["calls"],
        attempts=values["attempts"],
        cache_hits=values["cache_hits"],
        endpoints=tuple(json.loads(values["endpoints"])),
        system_merged=bool(values["system_merged"]),
        metadata=json.loads(values["metadata"]),
        warnings=tuple(json.loads(values["warnings"])),
    )


OUTCOME_COLUMNS = ("item_id", "status", "answer", "score", "passed", "reason", "error", "metadata")
"""What `outcome_row_to_result` reads: a result's verdict and metadata, no transcript."""


def outcome_row_to_result(row: Any) -> ItemResult:
    """A result with only its id, outcome, error and metadata, from OUTCOME_COLUMNS.

    For what is computed from verdicts and metadata alone (a scenarios run's pass rates): the
    transcript, reply, usage and details are left at their empty defaults, not read.
    """
    item_id, status, answer, score, passed, reason, error, metadata = row
    outcome = None
    if status == "ok":
        verdict = None if passed is None else bool(passed)
        outcome = Outcome(answer=answer, score=score, passed=verdict, reason=reason)
    return ItemResult(item_id=item_id, outcome=outcome, error=error, metadata=json.loads(metadata))


def row_to_run(row: Any) -> RunRecord:
    """Rebuild a RunRecord from a `SELECT * FROM runs` row."""
    (run_id, task, model, config, version, started, ended, status, pid, notes) = row
    return RunRecord(
        id=run_id,
        task=task,
        model=model,
        config=json.loads(config),
        version=version,
        started_at=started,
        ended_at=ended,
        status=status,
        pid=pid,
        notes=json.loads(notes),
    )
