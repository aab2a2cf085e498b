"""`rulebench runs`: list stored runs, show one, export its results, merge stores."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_option
from rulebench.cli.pricing import PriceInOption, PriceOutOption, PricesOption, price_table
from rulebench.core.run_kinds import GCG_TASK, TRAINING_TASK
from rulebench.engine.export.export_options import ExportOptions
from rulebench.engine.export.run_export import ExportFormat
from rulebench.report.untrusted import escape_markup, safe_text

if TYPE_CHECKING:
    from rulebench.core.pricing import PriceTable
    from rulebench.engine.store.database import Store
    from rulebench.engine.store.records import RunRecord

app = typer.Typer(help="Inspect and export stored runs.", no_args_is_help=True)


@app.command("list")
def list_runs(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Show at most N runs.")] = 20,
    store: opt.StoreOption = None,
    as_json: opt.JsonOption = False,
) -> None:
    """The most recent runs, with status ("killed" = its process died) and result counts."""
    from rulebench.engine.store.database import Store
    from rulebench.report.run_facts import runs_json
    from rulebench.report.tables import runs_table

    with Store(store, readonly=True) as db:
        rows = [
            (run, db.effective_status(run), db.count_results(run.id)) for run in db.list_runs(limit)
        ]
    if as_json:
        out.print_json(json.dumps(runs_json(rows)), ensure_ascii=True)
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
    from rulebench.engine.store.database import Store

    table = price_table(prices, price_in, price_out)
    with Store(store, readonly=True) as db:
        run = db.get_run(run_id)
        if item is not None:
            _show_item(db, run.id, item, as_json)
        else:
            _show_run(db, run, table, as_json, store)


def _show_run(
    db: "Store", run: "RunRecord", table: "PriceTable | None", as_json: bool, store: Path | None
) -> None:
    """The run's record, what it measured (summary table, tuning or attack facts), its ending."""
    from rulebench.cli.pricing import print_usage
    from rulebench.cli.render import print_errors
    from rulebench.report import run_facts
    from rulebench.report.run_facts import run_summary
    from rulebench.report.tables import summary_table

    group_by = run_facts.task_group_by(run.task)
    price = table.price_for(run.model) if table else None
    rows = run_summary(db, run.id, group_by, price)
    status = db.effective_status(run)
    if as_json:
        payload = run_facts.run_json(run, status, rows, price, table)
        out.print_json(json.dumps(payload), ensure_ascii=True)
        return
    _print_record(run, status)
    if run.task == TRAINING_TASK:
        _print_facts(run_facts.training_facts(run.notes))
    elif run.task == GCG_TASK:
        from rulebench.attack.attack_record import attack_facts

        _print_facts(attack_facts(db, run), soft_wrap=True)
    else:
        out.print(summary_table(rows, "Results", group_by or "group"))
        print_usage(rows[-1], run.model, price, table)
    _print_ending(db, run, status, store)
    print_errors(db, run.id)


def _print_record(run: "RunRecord", status: str) -> None:
    """Heading, times, wording and configuration; stored text, so never markup."""
    from rulebench.report.run_facts import run_heading, run_times
    from rulebench.report.run_wording import run_prompts_label

    title, rest = run_heading(run, status)
    out.print(f"[bold]{escape_markup(title)}[/bold]{escape_markup(rest)}", highlight=False)
    out.print(safe_text(run_times(run)))
    wording = run_prompts_label(run)
    if wording is not None:
        out.print(safe_text(wording), highlight=False)
    out.print_json(json.dumps(run.config), ensure_ascii=True)


def _print_facts(facts: list[tuple[str, object]], soft_wrap: bool = False) -> None:
    from rulebench.report.run_facts import fact_lines

    for line in fact_lines(facts):
        out.print(safe_text(line), highlight=False, soft_wrap=soft_wrap)


def _print_ending(db: "Store", run: "RunRecord", status: str, store: Path | None) -> None:
    """Why the run did not complete, and how to finish it (its shards, or a resume)."""
    from rulebench.cli.resume_commands import resume_command_of
    from rulebench.engine.run_errors import is_resumable
    from rulebench.report import run_facts

    reason = run_facts.stop_reason(db, run, status)
    why = run_facts.why_line(status, reason)
    if why is not None:
        err.print(safe_text(why, style="red"))
    if "shards" in run.notes:
        for line in run_facts.shard_hints(run.notes, opt.resume_command):
            err.print(safe_text(line))
    elif is_resumable(db, run.id, status, reason):
        command = resume_command_of(run.task, run.id) or opt.resume_command(run.id, store)
        err.print(safe_text(run_facts.resume_line(command)))


def _show_item(db: "Store", run_id: str, item_id: str, as_json: bool) -> None:
    from rulebench.cli.item_view import print_item
    from rulebench.report.item_facts import item_json, stored_item

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
    from rulebench.engine.store.merge_notes import merge_lines

    report = merge_stores(sources, into)
    if as_json:
        out.print_json(report.model_dump_json(), ensure_ascii=True)
        return
    for line in merge_lines(report, sources, into):
        out.print(safe_text(line))
    for warning in report.warnings:
        err.print(safe_text(f"warning: {warning}", style="yellow"))


@app.command()
def export(
    run_id: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
    output: Annotated[
        Path | None, field_option(ExportOptions, "output", "--output", "-o", shown=False)
    ] = None,
    fmt: Annotated[
        ExportFormat | None, field_option(ExportOptions, "format", "--format", "-f", shown=False)
    ] = None,
    store: opt.StoreOption = None,
) -> None:
    """Write a run's results to JSONL (full, replayable with scripted/replay), CSV, or inspect."""
    from rulebench.engine.export.export_options import export_stored_run

    exported = export_stored_run(store, run_id, ExportOptions(output=output, format=fmt))
    err.print(safe_text(exported.written))
    if exported.note is not None:
        err.print(safe_text(exported.note))
