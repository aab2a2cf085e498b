"""`rulebench serve`: the explorer of stored runs (and live ones) in a local web page."""

from typing import Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err
from rulebench.report.untrusted import safe_text


def serve(
    store: opt.StoreOption = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on; other than loopback needs --allow-remote.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8765,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a --host other machines can reach (the explorer has no login).",
        ),
    ] = False,
) -> None:
    """Browse the store's runs, items and comparisons in a browser; running runs update live."""
    from rulebench.engine.store import Store, default_store_path
    from rulebench.web.serve import ServeConfig, check_serve_config
    from rulebench.web.serve import serve as run_server

    config = ServeConfig(
        store=store or default_store_path(), host=host, port=port, allow_remote=allow_remote
    )
    check_serve_config(config)
    with Store(config.store, readonly=True):
        pass  # a missing store is one clear line before the server starts
    if config.is_remote:
        err.print(
            safe_text(
                f"warning: serving on {host}, reachable from other machines: anyone who reaches "
                f"port {port} reads every prompt, reply and config in {config.store} (no login)",
                style="yellow",
            )
        )
    shown = f"[{host}]" if ":" in host else host
    err.print(
        safe_text(
            f"rulebench explorer: http://{shown}:{port}/ (store {config.store}); Ctrl+C stops"
        )
    )
    run_server(config)


def register(app: typer.Typer) -> None:
    """Add the command to the main app."""
    app.command("serve")(serve)
