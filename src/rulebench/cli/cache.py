"""`rulebench cache`: explain a cache miss, show what is cached, clear it."""

from typing import Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.report.untrusted import escape_markup, safe_text

app = typer.Typer(
    help="Inspect the response cache (kept in the results store).", no_args_is_help=True
)


@app.command()
def explain(
    run_id: Annotated[str, typer.Argument(help="The run whose requests missed the cache.")],
    item: Annotated[
        str | None,
        typer.Option(
            help="Explain this item's request (default: the run's first miss).", show_default=False
        ),
    ] = None,
    store: opt.StoreOption = None,
) -> None:
    """Show which key parts of a missed request differ from the nearest cached entry."""
    from rich.table import Table

    from rulebench.engine.store.cache import DIFFERENCE_COLUMNS, NO_MISSES
    from rulebench.engine.store.database import Store

    with Store(store, readonly=True) as db:
        explanation = db.explain_cache_miss(run_id, item)
    if explanation is None or explanation.nearest_run_id is None:
        out.print(escape_markup(NO_MISSES if explanation is None else explanation.headline))
        return
    title = safe_text(explanation.headline, style="table.title")
    table = Table(title=title, title_justify="left")
    for column in DIFFERENCE_COLUMNS:
        table.add_column(column, overflow="fold")
    for row in explanation.rows():
        table.add_row(*(safe_text(cell) for cell in row))
    out.print(table)


@app.command()
def stats(store: opt.StoreOption = None) -> None:
    """Cached responses per model identity."""
    from rich.table import Table

    from rulebench.engine.store.database import Store

    with Store(store, readonly=True) as db:
        rows = db.cache_stats()
    table = Table(title="Response cache", title_justify="left")
    table.add_column("model identity")
    table.add_column("entries", justify="right")
    for model, count in rows:
        table.add_row(safe_text(model), str(count))
    out.print(table)


@app.command()
def clear(
    model: Annotated[
        str | None,
        typer.Option(help="Only this model identity (see `cache stats`).", show_default=False),
    ] = None,
    store: opt.StoreOption = None,
) -> None:
    """Delete cached responses (run results are kept)."""
    from rulebench.engine.store.database import Store

    with Store(store) as db:
        removed = db.clear_cache(model)
    err.print(f"removed {removed} cached responses")
