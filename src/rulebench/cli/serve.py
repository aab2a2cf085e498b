"""`rulebench serve`: the explorer of stored runs (and live ones) and the playground."""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.config_defaults import shown_default
from rulebench.cli.console import err
from rulebench.core.errors import ConfigError
from rulebench.core.validation import validate_into
from rulebench.report.untrusted import safe_text
from rulebench.web.playground import PlaygroundConfig
from rulebench.web.serve import (
    TOKEN_ENV_VAR,
    ServeConfig,
    check_port,
    check_serve_config,
    create_missing_store,
)
from rulebench.web.serve import serve as run_server

StoresOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--store",
        help="Results store (SQLite file); repeat it to browse several stores as one, each "
        "read where it is; a folder stands for the *.sqlite files in it. Default: "
        "$RULEBENCH_STORE, else rulebench.sqlite in ./rulebench-results/.",
        show_default=False,
    ),
]


def serve(
    store: StoresOption = None,
    host: Annotated[
        str | None,
        typer.Option(
            help="Address to listen on; other than loopback needs --allow-remote.",
            show_default=shown_default(ServeConfig, "host"),
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=65535,
            help="Port to listen on.",
            show_default=shown_default(ServeConfig, "port"),
        ),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Serve others: allow a --host other machines can reach, and apply the "
            "shared-server limits (--allow-model list, quotas) even on loopback.",
        ),
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="The playground's default model spec (see `rulebench models`). Default: the "
            "embedded SmolLM2-135M-Instruct on llama.cpp, loaded on the first game.",
            show_default=False,
        ),
    ] = None,
    allow_model: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-model",
            metavar="SPEC",
            help="With --allow-remote: another model spec visitors may pick besides --model "
            "(repeatable). No other spec is accepted.",
            show_default=False,
        ),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar=TOKEN_ENV_VAR,
            help="A shared access token every visitor must give once (a form, or ?token= in "
            "a link). The minimum for a team; a reverse proxy with real login is better.",
            show_default=False,
            show_envvar=True,
        ),
    ] = None,
    quota: Annotated[
        list[str] | None,
        typer.Option(
            "--quota",
            metavar="NAME=N",
            help="A per-visitor allowance when serving others, e.g. "
            "model_calls_per_minute=5 or saves_per_hour=none (repeatable; names and "
            "defaults: the red-teaming guide).",
            show_default=False,
        ),
    ] = None,
    model_arg: opt.ModelArgOption = None,
    base_url: opt.BaseUrlOption = None,
    save_dir: Annotated[
        Path | None,
        typer.Option(
            help="Folder the playground saves test cases to (its only writes; the store stays "
            "read-only).",
            show_default=shown_default(PlaygroundConfig, "save_dir"),
        ),
    ] = None,
    upstream: Annotated[
        Path | None,
        typer.Option(
            "--upstream",
            metavar="PATH",
            help="Your clone of normster/llm_rules: the playground then offers RuLES's own "
            "instruction text beside rulebench's (read from this clone only).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Browse the store's runs, items and comparisons, and play scenarios by hand, in a browser.

    Running runs update live. The playground (/play) talks to --model through the
    engine (the store's cache is read, never written) and saves cases to
    --save-dir for `rulebench run scenarios -s FILE`. A new first --store is created empty.
    """
    from rulebench.cli.interrupts import stopped_by_signal
    from rulebench.engine.store_set import StoreSet

    playground = playground_config(model, model_arg, base_url, save_dir, upstream, allow_model)
    given = {"host": host, "port": port, "token": token, "quotas": quotas_given(quota)}
    config = serve_config(store, allow_remote, playground, given)
    check_serve_config(config)
    if create_missing_store(config):
        err.print(
            safe_text(
                f"created an empty results store at {config.store}: runs appear here once "
                f"`rulebench run ... --store {config.store}` writes to it"
            )
        )
    with StoreSet.open(config.stores) as stores:
        stores.check_shared_runs()  # a missing store is one clear line before the server starts
    check_port(config)  # a busy port is one red line, before the banner
    announce(config, quotas_given=bool(quota))
    # uvicorn shuts down on the signal, raises it again and swallows the KeyboardInterrupt.
    with stopped_by_signal(lambda: "The server stopped.", lambda: None) as interrupts:
        run_server(config)
        if interrupts.signal_name is not None:
            raise KeyboardInterrupt


def playground_config(
    model: str | None,
    model_arg: list[str] | None,
    base_url: list[str] | None,
    save_dir: Path | None,
    upstream: Path | None,
    allow_model: list[str] | None,
) -> PlaygroundConfig:
    """The playground's settings from the options given (the rest: PlaygroundConfig's)."""
    from rulebench.models.registry import resolve_spec
    from rulebench.scenarios.upstream.text import resolve_wording

    given_dir = {} if save_dir is None else {"save_dir": save_dir}
    return PlaygroundConfig(
        **given_dir,
        model=resolve_spec(model),  # None: the embedded default; "" is refused
        model_args=opt.parse_model_args(model_arg),
        base_url=opt.join_base_urls(base_url),
        upstream=None if upstream is None else resolve_wording("upstream", upstream),
        allowed_models=tuple(resolve_spec(spec) for spec in allow_model or ()),
    )


def serve_config(
    store: list[Path] | None,
    allow_remote: bool,
    playground: PlaygroundConfig,
    given: Mapping[str, object],
) -> ServeConfig:
    """The server's settings: the options given (None: not given) over ServeConfig's defaults."""
    from rulebench.engine.store import default_store_path

    first, *more = store or [default_store_path()]
    raw = {
        "store": first,
        "more_stores": tuple(more),
        "allow_remote": allow_remote,
        "playground": playground,
        **{name: value for name, value in given.items() if value is not None},
    }
    return validate_into(ServeConfig, raw, "serve")


def startup_notes(config: ServeConfig, quotas_given: bool) -> list[str]:
    """One line for each option given that this server ignores (it serves no one else)."""
    if config.is_remote or config.allow_remote:
        return []
    notes = []
    if config.playground.allowed_models:
        notes.append("note: --allow-model matters with --allow-remote only (here any model plays)")
    if quotas_given:
        notes.append(
            "note: --quota matters with --allow-remote only (a server only this machine "
            "reaches limits no one)"
        )
    return notes


def announce(config: ServeConfig, quotas_given: bool) -> None:
    """The warning a server others reach deserves, notes on ignored options, and the URLs."""
    host, port, playground = config.host, config.port, config.playground
    stores = ", ".join(str(path) for path in config.stores)
    save_dir = playground.save_dir
    if config.is_remote:
        who = "anyone with the token" if config.token else "anyone"
        models = ", ".join(playground.allowed_models)
        err.print(
            safe_text(
                f"warning: serving on {host}, reachable from other machines: {who} who reaches "
                f"port {port} reads every prompt, reply and config in {stores}, plays "
                f"{playground.model}{f' (or {models})' if models else ''} and saves to "
                f"{save_dir} ({'a shared token, ' if config.token else ''}no login)",
                style="yellow",
            )
        )
    for note in startup_notes(config, quotas_given):
        err.print(note)
    shown = f"[{host}]" if ":" in host else host
    err.print(
        safe_text(
            f"rulebench explorer: http://{shown}:{port}/ ({_stores_word(config)} {stores}); "
            f"playground: http://{shown}:{port}/play (saves to {save_dir}); Ctrl+C stops"
        )
    )


def _stores_word(config: ServeConfig) -> str:
    return "stores" if config.more_stores else "store"


def quotas_given(settings: list[str] | None) -> dict[str, str | None] | None:
    """`--quota NAME=N` settings as the Quotas fields they set ("none": no limit)."""
    if not settings:
        return None
    given: dict[str, str | None] = {}
    for setting in settings:
        name, sign, value = setting.partition("=")
        if not sign or not name.strip():
            raise ConfigError(f"--quota {setting!r}: expected NAME=N, e.g. saves_per_hour=20")
        given[name.strip()] = None if value.strip().lower() == "none" else value.strip()
    return given


def register(app: typer.Typer) -> None:
    """Add the command to the main app."""
    app.command("serve")(serve)
