"""The facts of one stored run, as `rulebench runs show` says them: plain text, never markup.

Composed here so any front end lists a run alike: its heading, when it ran, what a tuning run
measured, why it did not complete, and how to finish it. A front end escapes each line before
rendering it (the store may hold any text).
"""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import JsonValue

from rulebench.engine.run_errors import is_error_tally
from rulebench.engine.store.records import RunRecord
from rulebench.report.prices import price_json

if TYPE_CHECKING:
    from rulebench.core.pricing import Price, PriceTable
    from rulebench.engine.store.database import Store
    from rulebench.engine.summary import GroupSummary

Fact = tuple[str, object]
"""A named fact of a run; one whose value is None is not shown."""
ResumeCommand = Callable[[str, Path | None], str]
"""The command that finishes run `run_id` of a store (None: the default one)."""


def run_heading(run: RunRecord, status: str) -> tuple[str, str]:
    """The run's first line in two parts: `Run ID` (shown bold) and what ran, with its status."""
    return f"Run {run.id}", f"  {run.task} on {run.model}  status: {status}"


def run_times(run: RunRecord) -> str:
    """When the run started and ended, and the rulebench version that ran it."""
    return f"started {run.started_at}, ended {run.ended_at or '-'}, rulebench {run.version}"


def fact_lines(facts: Sequence[Fact]) -> list[str]:
    """The facts as aligned `name value` lines, those without a value left out."""
    return [f"{name:18} {value}" for name, value in facts if value is not None]


def training_facts(notes: dict[str, JsonValue]) -> list[Fact]:
    """What a tuning run measured: steps, speed, eval loss before and after, where it saved."""
    curve = notes.get("loss_curve")
    points = curve if isinstance(curve, list) else []
    last = points[-1] if points and isinstance(points[-1], list) else None
    return [
        ("steps", notes.get("steps")),
        ("training tokens", notes.get("train_tokens")),
        ("wall time (s)", notes.get("wall_s")),
        ("tokens/s", notes.get("tokens_per_s")),
        ("device, precision", f"{notes.get('device', '-')}, {notes.get('precision', '-')}"),
        ("eval loss before", notes.get("eval_loss_before")),
        ("eval loss after", notes.get("eval_loss_after")),
        ("last logged loss", f"{last[1]} (step {last[0]})" if last else None),
        ("adapter", notes.get("adapter")),
        ("merged weights", notes.get("merged")),
    ]


def stop_reason(store: "Store", run: RunRecord, status: str) -> str:
    """Why the run stopped, as recorded; for a killed run without a record, the likely cause."""
    from rulebench.engine.store.run_liveness import why_killed

    reason = str(run.notes.get("reason") or "")
    if status == "killed" and not reason:
        reason = why_killed(store.path)
    return reason


def why_line(status: str, reason: str) -> str | None:
    """`why STATUS: REASON` for a run that did not complete; None where its errors say why."""
    if status != "completed" and reason and not is_error_tally(reason):
        return f"why {status}: {reason}"
    return None


def shard_hints(notes: dict[str, JsonValue], resume: ResumeCommand) -> list[str]:
    """The shards a joined run still lacks, and the commands that finish them."""
    from rulebench.engine.store.shard_status import missing_shards, unfinished_shards

    count = notes.get("shard_count")
    lines = []
    missing = missing_shards(notes)
    if missing:
        named = ", ".join(f"{index}/{count}" for index in missing)
        lines.append(
            f"Missing shards {named}: run the shards' command with --shard I/N for each "
            f"(e.g. --shard {missing[0]}/{count}) into its own store, then `rulebench runs "
            "merge` those stores into this one"
        )
    for shard in unfinished_shards(notes):
        command = resume(str(shard.get("run")), Path(str(shard.get("store"))))
        lines.append(
            f"Shard {shard.get('index')}/{count} is {shard.get('status')}: finish it with "
            f"`{command}`, then merge its store again"
        )
    return lines


def resume_line(command: str) -> str:
    """The hint under a run that a resume can finish or retry."""
    return f"Resume with: {command}"


def task_group_by(task: str) -> str | None:
    """The metadata field a task's summary table groups its results by, if any."""
    from rulebench.engine.catalog import TASKS

    entry = TASKS.get(task)
    return entry.group_by if entry else None


def run_json(
    run: RunRecord,
    status: str,
    rows: Sequence["GroupSummary"],
    price: "Price | None",
    table: "PriceTable | None",
) -> dict[str, JsonValue]:
    """The run as `runs show --json` prints it: its record, status, wording and summary."""
    from rulebench.report.run_wording import run_prompts_label

    record: dict[str, JsonValue] = run.model_dump(mode="json")
    return record | {
        "status": status,
        "prompts_label": run_prompts_label(run),
        "summary": [row.model_dump(mode="json") for row in rows],
        "prices": None if price is None else price_json(price, table),
    }


def runs_json(rows: Sequence[tuple[RunRecord, str, dict[str, int]]]) -> list[JsonValue]:
    """Runs as `runs list --json` prints them: each record with its status and counts."""
    listed: list[JsonValue] = []
    for run, status, counts in rows:
        record: dict[str, JsonValue] = run.model_dump(mode="json")
        listed.append(record | {"status": status, "counts": dict(counts)})
    return listed


def run_summary(
    store: "Store", run_id: str, group_by: str | None, price: "Price | None"
) -> "list[GroupSummary]":
    """A run's summary rows, per group of `group_by` then overall, with costs at `price`."""
    from rulebench.engine.summary import priced, summarize

    return priced(summarize(store.tally_results(run_id, group_by), group_by is not None), price)
