"""`rulebench runs`: list stored runs, show one, export its results, merge stores."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from pydantic import JsonValue

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.pricing import (
    PriceInOption,
    PriceOutOption,
    PricesOption,
    price_json,
    price_table,
    print_usage,
)
from rulebench.core.run_kinds import GCG_TASK, TRAINING_TASK
from rulebench.report.untrusted import escape_markup, safe_text

if TYPE_CHECKING:
    from rulebench.engine.store.database import Store
    from rulebench.engine.store.records import RunRecord

ExportFormat = Literal["jsonl", "csv", "inspect"]
_SUFFIXES: dict[str, ExportFormat] = {".jsonl": "jsonl", ".csv": "csv", ".eval": "inspect"}
INSPECT_LOG_DIR = Path("logs")
"""Where `--format inspect` writes without --output: the folder `inspect view` opens."""

app = typer.Typer(help="Inspect and export stored runs.", no_args_is_help=True)


@app.command("list")
def list_runs(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Show at most N runs.")] = 20,
    store: opt.StoreOption = None,
    as_json: opt.JsonOption = False,
) -> None:
    """The most recent runs, with status ("killed" = its process died) and result counts."""
    from rulebench.engine.store.database import Store
    from rulebench.report.tables import runs_table

    with Store(store, readonly=True) as db:
        rows = [
            (run, db.effective_status(run), db.count_results(run.id)) for run in db.list_runs(limit)
        ]
    if as_json:
        payload = [
            run.model_dump(mode="json") | {"status": status, "counts": counts}
            for run, status, counts in rows
        ]
        out.print_json(json.dumps(payload), ensure_ascii=True)
    elif rows:
        out.print(runs_table(rows))
    else:
        err.print("No runs yet: start one with `rulebench run`.")


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
    store: opt.StoreOption = None,
    as_json: opt.JsonOption = False,
    prices: PricesOption = None,
    price_in: PriceInOption = None,
    price_out: PriceOutOption = None,
    item: Annotated[
        str | None,
        typer.Option(
            help="Show this item instead: its transcript, each reply's thinking above its "
            "answer, and its verdict.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """A run's configuration, status and summary table: tokens and, given prices, cost.

    With --item, one item instead: its transcript with each reply's thinking, and its verdict.
    """
    from rulebench.cli.render import is_error_tally, is_resumable, print_errors
    from rulebench.cli.resume_commands import resume_command_of
    from rulebench.engine.catalog import TASKS
    from rulebench.engine.store.database import Store
    from rulebench.engine.store.run_liveness import why_killed
    from rulebench.engine.summary import priced, summarize
    from rulebench.report.run_wording import run_prompts_label
    from rulebench.report.tables import summary_table

    table = price_table(prices, price_in, price_out)
    with Store(store, readonly=True) as db:
        run = db.get_run(run_id)
        if item is not None:
            _show_item(db, run.id, item, as_json)
            return
        entry = TASKS.get(run.task)
        group_by = entry.group_by if entry else None
        price = table.price_for(run.model) if table else None
        rows = priced(summarize(db.tally_results(run.id, group_by), group_by is not None), price)
        status = db.effective_status(run)
        wording = run_prompts_label(run)
        if as_json:
            payload = run.model_dump(mode="json") | {
                "status": status,
                "prompts_label": wording,
                "summary": [row.model_dump(mode="json") for row in rows],
                "prices": None if price is None else price_json(price, table),
            }
            out.print_json(json.dumps(payload), ensure_ascii=True)
            return
        # Everything here comes from the store, which may hold any text: never markup.
        out.print(
            f"[bold]Run {escape_markup(run.id)}[/bold]  {escape_markup(run.task)} on "
            f"{escape_markup(run.model)}  status: {escape_markup(status)}",
            highlight=False,
        )
        out.print(
            safe_text(
                f"started {run.started_at}, ended {run.ended_at or '-'}, rulebench {run.version}"
            )
        )
        if wording is not None:
            out.print(safe_text(wording), highlight=False)
        out.print_json(json.dumps(run.config), ensure_ascii=True)
        if run.task == TRAINING_TASK:
            print_training_notes(run.notes)
        elif run.task == GCG_TASK:
            print_attack_record(db, run)
        else:
            out.print(summary_table(rows, "Results", group_by or "group"))
            print_usage(rows[-1], run.model, price, table)
        reason = str(run.notes.get("reason") or "")
        if status == "killed" and not reason:
            reason = why_killed(db.path)
        if status != "completed" and reason and not is_error_tally(reason):
            err.print(safe_text(f"why {status}: {reason}", style="red"))
        if "shards" in run.notes:
            print_shard_hint(run)
        elif is_resumable(db, run.id, status, reason):
            command = resume_command_of(run.task, run.id) or opt.resume_command(run.id, store)
            err.print(safe_text(f"Resume with: {command}"))
        print_errors(db, run.id)


def _show_item(db: "Store", run_id: str, item_id: str, as_json: bool) -> None:
    from rulebench.cli.item_view import item_json, print_item, stored_item

    result = stored_item(db, run_id, item_id)
    if as_json:
        out.print_json(json.dumps(item_json(result)), ensure_ascii=True)
    else:
        print_item(result)


@app.command()
def merge(
    sources: Annotated[list[Path], typer.Argument(help="Stores to copy from.", show_default=False)],
    into: Annotated[Path, typer.Option("--into", help="Store to copy into (created if missing).")],
    as_json: opt.JsonOption = False,
) -> None:
    """Copy runs, results and cache entries into one store; a sharded run's shards become one run.

    Merging the same store twice adds nothing. A run or a finished result
    that differs is refused; an error result is replaced by the same item's
    later one (a shard resumed since). Shards of one run started with
    different options are refused.
    """
    from rulebench.engine.store.merge import merge_stores

    report = merge_stores(sources, into)
    if as_json:
        out.print_json(report.model_dump_json(), ensure_ascii=True)
        return
    out.print(
        safe_text(
            f"merged {len(sources)} store(s) into {into}: {report.runs_added} runs, "
            f"{report.results_added} results, {report.cache_added} cache entries added"
            + (
                f"; {report.results_replaced} error results replaced by later ones"
                if report.results_replaced
                else ""
            )
        )
    )
    for run_id in report.sharded_runs:
        out.print(safe_text(f"sharded run {run_id}: see `rulebench runs show {run_id}`"))
    for warning in report.warnings:
        err.print(safe_text(f"warning: {warning}", style="yellow"))


def print_shard_hint(run: "RunRecord") -> None:
    """Name the shards a joined run still lacks and the commands that finish them."""
    from rulebench.engine.store.shard_status import missing_shards, unfinished_shards

    count = run.notes.get("shard_count")
    missing = missing_shards(run.notes)
    if missing:
        named = ", ".join(f"{index}/{count}" for index in missing)
        err.print(
            safe_text(
                f"Missing shards {named}: run the shards' command with --shard I/N for each "
                f"(e.g. --shard {missing[0]}/{count}) into its own store, then `rulebench runs "
                "merge` those stores into this one"
            )
        )
    for shard in unfinished_shards(run.notes):
        command = opt.resume_command(str(shard.get("run")), Path(str(shard.get("store"))))
        err.print(
            safe_text(
                f"Shard {shard.get('index')}/{count} is {shard.get('status')}: finish it with "
                f"`{command}`, then merge its store again"
            )
        )


@app.command()
def export(
    run_id: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="File to write: .jsonl, .csv, or .eval (or .json) for --format inspect (which, "
            "without it, writes logs/<time>_<task>_<id>.eval for `inspect view`).",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        ExportFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="jsonl, csv, or inspect: an inspect_ai eval log that `inspect view` opens, "
            ".eval (read a sample at a time, for runs of any size) unless --output names a "
            ".json (default: from the file suffix, .jsonl or .csv).",
            show_default=False,
        ),
    ] = None,
    store: opt.StoreOption = None,
) -> None:
    """Write a run's results to JSONL (full, replayable with scripted/replay), CSV, or inspect."""
    from rulebench.core.errors import ConfigError
    from rulebench.engine.catalog import TASKS
    from rulebench.engine.export.inspect_log import inspect_log_name, is_listed_by_inspect
    from rulebench.engine.export.run_export import export_run
    from rulebench.engine.store.database import Store

    chosen = export_format(output, fmt)
    with Store(store, readonly=True) as db:
        run = db.get_run(run_id)
        if run.task == TRAINING_TASK:
            raise ConfigError(
                f"run {run.id} is an IRFT tuning run: it has no item results to export; "
                f"`rulebench runs show {run.id}` prints its record (loss curve with --json)"
            )
        path = output or default_inspect_path(inspect_log_name(run))
        entry = TASKS.get(run.task)
        count = export_run(db, run, path, chosen, entry.group_by if entry else None)
    err.print(safe_text(f"wrote {count} results of run {run.id} to {path} ({chosen})"))
    if chosen == "inspect" and not is_listed_by_inspect(path.name):
        err.print(
            safe_text(
                f"note: `inspect view` lists only logs whose names start with a time, as "
                f"{inspect_log_name(run)} does"
            )
        )


def default_inspect_path(name: str) -> Path:
    """`logs/NAME`, the folder made if missing: `inspect view` run here opens it by default."""
    from rulebench.core.errors import StoreError

    try:
        INSPECT_LOG_DIR.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot make {INSPECT_LOG_DIR}/: {exc.strerror or exc}") from None
    return INSPECT_LOG_DIR / name


def export_format(output: Path | None, fmt: ExportFormat | None) -> ExportFormat:
    """The format to write: --format, else the file's suffix; never JSONL under another name.

    A suffix that names neither format (results.parquet, results.json) is refused unless
    --format says what to write, so a file is never silently something its name is not. An
    inspect log is a .eval or .json file (inspect reads no other name), named by default.
    """
    from rulebench.core.errors import ConfigError

    if fmt == "inspect":
        if output is not None and output.suffix.lower() not in (".eval", ".json"):
            raise ConfigError(
                f"--output {output}: an inspect log is a .eval or .json file (inspect reads "
                "no other)"
            )
        return fmt
    if output is None:
        raise ConfigError(
            "--output is required for JSONL and CSV exports (only --format inspect names "
            "its own file)"
        )
    suffix = output.suffix.lower()
    by_suffix = _SUFFIXES.get(suffix)
    if fmt is not None and by_suffix is not None and fmt != by_suffix:
        raise ConfigError(f"--output {output} names a {suffix} file but --format is {fmt}")
    chosen = fmt or by_suffix
    if chosen is None:
        hint = "; for an inspect log add --format inspect" if suffix == ".json" else ""
        raise ConfigError(
            f"--output {output}: cannot write {suffix or 'a file without a suffix'}; "
            f"exports are JSONL (.jsonl) or CSV (.csv) (or name one with --format){hint}"
        )
    return chosen


def print_attack_record(db: "Store", run: "RunRecord") -> None:
    """Where a GCG attack stands: steps, loss, suffix and, once finished, its held-out test."""
    from rulebench.attack.stored import last_state

    state = last_state(db, run.id)
    gcg = run.config.get("gcg")
    total = gcg.get("num_steps", "?") if isinstance(gcg, dict) else "?"
    facts: list[tuple[str, object]] = [
        ("steps", f"{state.step if state else 0} of {total}"),
        ("loss (last step)", f"{state.loss:.4f}" if state else None),
        ("suffix", repr(state.suffix) if state else None),
    ]
    for name in ("heldout_initial", "heldout_final"):
        held = run.notes.get(name)
        if isinstance(held, dict):
            facts.append(
                (name.replace("_", " "), f"loss {held.get('loss')}, targets reproduced "
                 f"{held.get('reached')}/{held.get('instances')}")
            )  # fmt: skip
    for name, value in facts:
        if value is not None:
            out.print(safe_text(f"{name:18} {value}"), highlight=False, soft_wrap=True)


def print_training_notes(notes: dict[str, JsonValue]) -> None:
    """What a tuning run measured: steps, speed, eval loss before and after, where it saved."""
    curve = notes.get("loss_curve")
    points = curve if isinstance(curve, list) else []
    last = points[-1] if points and isinstance(points[-1], list) else None
    facts = [
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
    for name, value in facts:
        if value is not None:
            out.print(safe_text(f"{name:18} {value}"), highlight=False)
