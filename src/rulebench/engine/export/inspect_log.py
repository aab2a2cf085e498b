"""A run as an inspect_ai eval log (log format version 2), for `inspect view`.

inspect users browse rulebench runs with their own viewer. The log is written from the
format's fields as inspect_ai's log models define them (`inspect_ai/log/_log.py`): inspect_ai
is not a dependency, and its reader checks the result in the tests. This module builds the
header and the samples and writes the `.json` format; `inspect_eval` writes the `.eval` zip.

How rulebench's results map onto inspect's:
- a result is a sample (epoch 1, id = item id); an item that ended in an error is a sample
  with an `error`, and no score;
- a score (questions) is the score `score`, its number as the value (1.0 right, 0.0 wrong);
- a verdict (rule checks) is the score `verdict`, "C" when the rules held and "I" when one
  broke: pass/fail is a verdict, not a quantity, and C/I is how inspect records one (its
  viewer marks them as correct/incorrect and its metrics count C as 1, I as 0);
- a finished item that does not count (a refusal a task excludes) gets the score NaN, which
  inspect keeps but leaves out of every metric, as `runs show` leaves it out;
- the run's rates are the metrics, with their Wilson 95% interval, per group as well: the
  numbers of `rulebench runs show`;
- a reply's thinking is reasoning content before the answer's text in the reply's message
  (inspect's `ContentReasoning`), which `inspect view` shows collapsed above the answer; a
  reply whose thinking never finished stopped at `max_tokens`;
- each reply is a model event and each score a score event (`inspect_events`), which the
  viewer's Transcript tab draws.
"""

import json
import math
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal, NamedTuple, TextIO

from pydantic import JsonValue

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.core.stats import Proportion
from rulebench.engine.export.inspect_events import sample_events
from rulebench.engine.store.records import RunRecord
from rulebench.engine.summary import GroupSummary

LogSuffix = Literal[".eval", ".json"]
"""inspect's two log formats: a zip read a sample at a time, or one JSON document."""
LOG_VERSION = 2
"""inspect's eval log format version these logs follow."""
SCORE = "score"
VERDICT = "verdict"
_STATUS = {"completed": "success", "failed": "error", "interrupted": "cancelled"}
"""rulebench run status -> inspect eval status; anything else (running, killed) is "started"."""
# `inspect view` lists a folder's .json logs only when their names start with a time.
_LISTED_NAME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$")
# Where tasks record an item's gold answer: inferential items in their metadata, judge items
# (the true verdict of the exchange judged) in their outcome's details.
_GOLD_KEYS = (("metadata", "gold"), ("details", "truth"))


class RunLog(NamedTuple):
    """What a log says about the run as a whole, read from the store before its samples."""

    run: RunRecord
    status: str
    """The run's status as `runs show` prints it ("killed" for a dead process)."""
    summary: Sequence[GroupSummary]
    """`runs show`'s rows: one per group, then the overall row (last)."""
    group_by: str | None


def inspect_log_name(run: RunRecord, suffix: LogSuffix = ".eval") -> str:
    """The file name inspect gives its own logs: `inspect view` lists a folder's logs by it.

    inspect lists only `.json` logs whose name starts with an ISO timestamp (`.eval` logs
    whatever their name), and reads the task and task id from the parts after it
    (`<time>_<task>_<task id>.eval`).
    """
    started = datetime.fromisoformat(run.started_at).isoformat(timespec="seconds")
    return f"{started.replace(':', '-')}_{run.task.replace('_', '-')}_{_task_id(run)}{suffix}"


def is_listed_by_inspect(name: str) -> bool:
    """Whether `inspect view` lists a log file of this name when it opens its folder."""
    return name.endswith(".eval") or _LISTED_NAME.match(name) is not None


def write_inspect_log(log: RunLog, results: Iterable[ItemResult], out: TextIO) -> int:
    """Write the log as one `.json`: its header, then one sample per result; returns the count.

    Samples are written as they are read, so a run of any size is never held in memory. The
    header comes first because inspect reads a log's header without reading its samples.
    inspect's viewer opens no `.json` log past about 100 MB, though: a big run goes to `.eval`
    (`inspect_eval`), which it reads a sample at a time.
    """
    out.write(_dumps(log_header(log))[:-1] + ', "samples": [')
    count = 0
    for result in results:
        out.write(("," if count else "") + "\n" + _dumps(sample(result, log.run)))
        count += 1
    out.write("\n]}\n")
    return count


def log_header(log: RunLog) -> dict[str, JsonValue]:
    """Everything a log holds but its samples: the run's spec, plan, results and stats."""
    header: dict[str, JsonValue] = {
        "version": LOG_VERSION,
        "status": _STATUS.get(log.status, "started"),
        "eval": eval_spec(log),
        "plan": plan(log.run),
        "results": eval_results(log),
        "stats": stats(log),
    }
    if log.status == "failed":
        reason = str(log.run.notes.get("reason") or "the run failed")
        header["error"] = {"message": reason, "traceback": "", "traceback_ansi": ""}
    return header


def eval_spec(log: RunLog) -> dict[str, JsonValue]:
    """Which task ran on which model with which settings; the full run config in metadata."""
    run, config = log.run, log.run.config
    overall = log.summary[-1]
    return {
        "eval_id": _task_id(run),
        "run_id": run.id,
        "created": run.started_at,
        "task": run.task,
        "task_id": _task_id(run),
        "task_args": _dict(config.get("task_config")),
        "dataset": {"name": run.task, "samples": overall.items},
        "model": run.model,
        "model_generate_config": generate_config(config),
        "model_base_url": _text(config.get("base_url")),
        "model_args": _dict(config.get("model_args")),
        "config": {"limit": config.get("limit"), "epochs": 1},
        "packages": {"rulebench": run.version},
        "metadata": {"rulebench": {"config": config, "notes": run.notes, "status": log.status}},
    }


def generate_config(config: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The run's generation settings under inspect's names (stop -> stop_seqs)."""
    generate = _dict(config.get("generate"))
    stop = generate.get("stop")
    return {
        "max_tokens": generate.get("max_tokens"),
        "temperature": generate.get("temperature"),
        "top_p": generate.get("top_p"),
        "seed": generate.get("seed"),
        "stop_seqs": list(stop) if isinstance(stop, list) and stop else None,
        "max_connections": config.get("concurrency"),
    }


def plan(run: RunRecord) -> dict[str, JsonValue]:
    """One step: the rulebench task, which plays and scores each item."""
    return {
        "name": "plan",
        "steps": [
            {"solver": f"rulebench/{run.task}", "params": _dict(run.config.get("task_config"))}
        ],
        "config": generate_config(run.config),
    }


def eval_results(log: RunLog) -> dict[str, JsonValue]:
    """Sample counts and one score per rate the run has (accuracy, pass rate)."""
    overall = log.summary[-1]
    scores: list[JsonValue] = []
    for name, metric, pick in ((SCORE, "accuracy", _accuracy), (VERDICT, "pass_rate", _pass)):
        rate = pick(overall)
        if rate is None:
            continue
        metrics = _rate_metrics(metric, rate)
        for row in log.summary[:-1]:
            metrics.update(_group_metric(log.group_by or "group", row.group, pick(row)))
        scores.append(
            {
                "name": name,
                "scorer": f"rulebench/{log.run.task}",
                "scored_samples": rate.n,
                "unscored_samples": overall.items - rate.n,
                "metrics": metrics,
            }
        )
    return {
        "total_samples": overall.items,
        "completed_samples": overall.items - overall.errors,
        "scores": scores,
        "metadata": {
            "group_by": log.group_by,
            "summary": [row.model_dump(mode="json") for row in log.summary],
        },
    }


def stats(log: RunLog) -> dict[str, JsonValue]:
    """When the run started and ended, and the tokens it used (all of its results)."""
    overall = log.summary[-1]
    usage = Usage(
        prompt_tokens=overall.prompt_tokens,
        completion_tokens=overall.completion_tokens,
        reasoning_tokens=overall.reasoning_tokens,
    )
    return {
        "started_at": log.run.started_at,
        "completed_at": log.run.ended_at or "",
        "model_usage": {log.run.model: model_usage(usage)},
    }


def sample(result: ItemResult, run: RunRecord) -> dict[str, JsonValue]:
    """One result as an inspect sample: conversation, reply, scores, tokens, error, events."""
    model, messages = run.model, result.messages
    opening = next((i for i, m in enumerate(messages) if m.role == "assistant"), len(messages))
    entry: dict[str, JsonValue] = {
        "id": result.item_id,
        "epoch": 1,
        "input": [_message(result.item_id, i, m, model) for i, m in enumerate(messages[:opening])],
        "target": gold_answer(result),
        "messages": _conversation(result, model),
        "output": output(result, model),
        "scores": None if result.outcome is None else sample_scores(result.outcome),
        "metadata": {
            **result.metadata,
            "rulebench": {
                "calls": result.calls,
                "attempts": result.attempts,
                "cache_hits": result.cache_hits,
                # Apart from model_usage, which counts only what the model read and wrote.
                "cached_prompt_tokens": result.cached_usage.prompt_tokens,
                "cached_completion_tokens": result.cached_usage.completion_tokens,
                "scoring_tokens": result.scoring_tokens,
                "endpoints": list(result.endpoints),
                "system_merged": result.system_merged,
                "reasoning_unfinished": result.is_reasoning_unfinished,
                "warnings": list(result.warnings),
            },
        },
        "model_usage": {model: model_usage(result.usage)},
        "total_time": result.latency_s,
        "working_time": result.latency_s,
    }
    if result.error is not None:
        entry["error"] = {"message": result.error, "traceback": "", "traceback_ansi": ""}
    entry["events"] = sample_events(result, entry, generate_config(run.config), run.started_at)
    return entry


def sample_scores(outcome: Outcome) -> dict[str, JsonValue]:
    """The item's score and/or verdict; NaN (inspect's "unscored") when it has neither."""
    scores: dict[str, JsonValue] = {}
    if outcome.score is not None:
        scores[SCORE] = _score(outcome.score, outcome)
    if outcome.passed is not None:
        scores[VERDICT] = _score("C" if outcome.passed else "I", outcome)
    if not scores:
        scores[SCORE] = _score(math.nan, outcome) | {"reason": "excluded"}
    return scores


def output(result: ItemResult, model: str) -> dict[str, JsonValue]:
    """The model's last reply and the tokens of all the item's calls (no reply: no choice)."""
    choices: list[JsonValue] = []
    if result.reply is not None:
        reply = Message(role="assistant", content=result.reply)
        message = _message(result.item_id, -1, reply, model, result.reasoning)
        # rulebench stores why generation stopped only when it cut the thinking short.
        stop = "max_tokens" if result.is_reasoning_unfinished else "unknown"
        choices.append({"message": message, "stop_reason": stop})
    return {
        "model": model,
        "choices": choices,
        "completion": result.reply or "",
        "usage": model_usage(result.usage),
        "time": result.latency_s,
    }


def model_usage(usage: Usage) -> dict[str, JsonValue]:
    """Token counts under inspect's names; reasoning tokens are part of the output tokens."""
    return {
        "input_tokens": usage.prompt_tokens,
        "output_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
        "reasoning_tokens": usage.reasoning_tokens or None,
    }


def gold_answer(result: ItemResult) -> str:
    """The item's gold answer where its task records one; "" (no target) otherwise."""
    details = result.outcome.details if result.outcome else {}
    places = {"metadata": result.metadata, "details": details}
    for place, key in _GOLD_KEYS:
        value = places[place].get(key)
        if isinstance(value, str):
            return value
    return ""


def _score(value: JsonValue, outcome: Outcome) -> dict[str, JsonValue]:
    return {
        "value": value,
        "answer": outcome.answer,
        "explanation": outcome.reason,
        "metadata": outcome.details or None,
    }


def _conversation(result: ItemResult, model: str) -> list[JsonValue]:
    """The item's messages; the last reply (the one whose thinking is stored) with it."""
    messages = result.messages
    last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
    is_reply = last >= 0 and messages[last].content == result.reply
    return [
        _message(result.item_id, i, m, model, result.reasoning if is_reply and i == last else None)
        for i, m in enumerate(messages)
    ]


def _message(
    item_id: str, index: int, message: Message, model: str, reasoning: str | None = None
) -> dict[str, JsonValue]:
    # Stable ids (inspect's own are random): the viewer keys messages by them.
    content: JsonValue = message.content
    if reasoning:
        content = [
            {"type": "reasoning", "reasoning": reasoning},
            {"type": "text", "text": message.content},
        ]
    entry: dict[str, JsonValue] = {
        "id": f"{item_id}-{'reply' if index < 0 else index}",
        "role": message.role,
        "content": content,
    }
    if message.role == "assistant":
        entry["model"] = model
    return entry


def _rate_metrics(name: str, rate: Proportion) -> dict[str, JsonValue]:
    return {
        name: {"name": name, "value": rate.value},
        "ci95_low": {"name": "ci95_low", "value": rate.low},
        "ci95_high": {"name": "ci95_high", "value": rate.high},
    }


def _group_metric(group_by: str, group: str, rate: Proportion | None) -> dict[str, JsonValue]:
    """A group's rate as a metric of the group `group_by` (the viewer shows them together)."""
    if rate is None:
        return {}
    return {
        f"{group_by}={group}": {
            "name": group,
            "group": group_by,
            "value": rate.value,
            "metadata": {"n": rate.n, "ci95_low": rate.low, "ci95_high": rate.high},
        }
    }


def _accuracy(row: GroupSummary) -> Proportion | None:
    return row.accuracy


def _pass(row: GroupSummary) -> Proportion | None:
    return row.pass_rate


def _task_id(run: RunRecord) -> str:
    # inspect splits a log's file name at "-" to read the task id: keep the id in one piece.
    return run.id.replace("-", "")


def _dict(value: JsonValue) -> dict[str, JsonValue]:
    return value if isinstance(value, dict) else {}


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def _dumps(value: JsonValue) -> str:
    # NaN stays the JSON constant inspect itself writes for an unscored sample.
    return json.dumps(value, ensure_ascii=False)
