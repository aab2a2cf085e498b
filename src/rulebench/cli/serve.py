"""`rulebench serve`: the explorer of stored runs (and live ones) and the playground.

The options fill `rulebench.web.serve_options.ServeOptions`, which the library turns into the
server's config; this module prints what the server says on start-up and runs it.
"""

from pathlib import Path
from typing import Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err
from rulebench.cli.field_options import field_help, field_option
from rulebench.engine.run_flags import join_base_urls, parse_model_args
from rulebench.report.untrusted import safe_text
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.serve import (
    TOKEN_ENV_VAR,
    ServeConfig,
    check_can_start,
    check_serve_config,
    create_missing_store,
)
from rulebench.web.serve import serve as run_server
from rulebench.web.serve_notes import (
    created_store_note,
    listening_line,
    remote_warning,
    startup_notes,
)
from rulebench.web.serve_options import ServeOptions, serve_config

TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar=TOKEN_ENV_VAR,
        help=field_help(ServeConfig, "token"),
        show_default=False,
        show_envvar=True,
    ),
]


def serve(
    store: Annotated[
        list[Path] | None, field_option(ServeOptions, "stores", "--store", shown=False)
    ] = None,
    host: Annotated[str | None, field_option(ServeConfig, "host")] = None,
    port: Annotated[int | None, field_option(ServeConfig, "port")] = None,
    allow_remote: Annotated[bool, field_option(ServeConfig, "allow_remote", shown=True)] = False,
    model: Annotated[
        str | None, field_option(PlaygroundConfig, "model", "--model", "-m", shown=False)
    ] = None,
    allow_model: Annotated[
        list[str] | None,
        field_option(
            PlaygroundConfig, "allowed_models", "--allow-model", shown=False, metavar="SPEC"
        ),
    ] = None,
    token: TokenOption = None,
    quota: Annotated[
        list[str] | None,
        field_option(ServeOptions, "quotas", "--quota", shown=False, metavar="NAME=N"),
    ] = None,
    model_arg: opt.ModelArgOption = None,
    base_url: opt.BaseUrlOption = None,
    save_dir: Annotated[Path | None, field_option(PlaygroundConfig, "save_dir")] = None,
    upstream: Annotated[
        Path | None, field_option(ServeOptions, "upstream", shown=False, metavar="PATH")
    ] = None,
) -> None:
    """Browse the store's runs, items and comparisons, and play scenarios by hand, in a browser.

    Running runs update live. The playground (/play) talks to --model through the
    engine (the store's cache is read, never written) and saves cases to
    --save-dir for `rulebench run scenarios -s FILE`. A new first --store is created empty.
    """
    from rulebench.cli.interrupts import stopped_by_signal

    given = ServeOptions(
        stores=tuple(store or ()),
        host=host,
        port=port,
        allow_remote=allow_remote,
        token=token,
        quotas=tuple(quota or ()),
        model=model,
        model_args=parse_model_args(model_arg),
        base_url=join_base_urls(base_url),
        save_dir=save_dir,
        upstream=upstream,
        allowed_models=tuple(allow_model or ()),
    )
    config = serve_config(given)
    start(config, quotas_given=bool(quota))
    # uvicorn shuts down on the signal, raises it again and swallows the KeyboardInterrupt.
    with stopped_by_signal(lambda: "The server stopped.", lambda: None) as interrupts:
        run_server(config)
        if interrupts.signal_name is not None:
            raise KeyboardInterrupt


def start(config: ServeConfig, quotas_given: bool) -> None:
    """Check the server can start, and print what it says before it does."""
    check_serve_config(config)
    if create_missing_store(config):
        err.print(safe_text(created_store_note(config)))
    check_can_start(config)  # a missing store or a busy port is one red line, before the banner
    warning = remote_warning(config)
    if warning is not None:
        err.print(safe_text(warning, style="yellow"))
    for note in startup_notes(config, quotas_given):
        err.print(note)
    err.print(safe_text(listening_line(config)))


def register(app: typer.Typer) -> None:
    """Add the command to the main app."""
    app.command("serve")(serve)
