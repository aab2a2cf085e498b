"""Serving the explorer: where it may listen, what it needs installed, and uvicorn itself.

A loopback bind is the default and the safe case: the app has no login, and the store holds
prompts, replies and configurations. Any other address needs `allow_remote`, and the caller
(the CLI) warns that whoever reaches the port reads the store and plays the server's model;
visitors may then name no other model (a spec can load any local file or spend any key set
in the server's environment) but those the operator allows (`--allow-model`), and each visitor
gets quotas (`Quotas`). An optional shared token (`token_gate`) stands in front of every page.
"""

import asyncio
import errno
import logging
import socket
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from rulebench.core.errors import ConfigError
from rulebench.plugins.foreign_code import missing_modules
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.playground.quotas import Quotas

TOKEN_ENV_VAR = "RULEBENCH_SERVE_TOKEN"
MIN_TOKEN_CHARS = 12

WEB_MODULES = ("fastapi", "uvicorn", "jinja2")
INSTALL_HINT = "pip install 'rulebench[web]'"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


class ServeConfig(BaseModel):
    """Where the explorer listens and which stores it shows."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    store: Path
    """The first store (a file, or a folder of `*.sqlite` stores); the playground's cache."""
    more_stores: tuple[Path, ...] = ()
    """Stores shown besides `store`, each read in place (`engine.store.store_set`)."""
    host: str = DEFAULT_HOST
    """Address to listen on; other than loopback needs --allow-remote."""
    port: int = Field(default=DEFAULT_PORT, ge=1, le=65535)
    """Port to listen on."""
    allow_remote: bool = False
    """Serve others: allow a --host other machines can reach, and apply the shared-server
    limits (--allow-model list, quotas) even on loopback."""
    playground: PlaygroundConfig = PlaygroundConfig()
    """The playground's default model and save folder (`any_model` is set from the host)."""
    quotas: Quotas = Quotas()
    """Each visitor's allowances when others reach the server (none on loopback)."""
    token: SecretStr | None = None
    """A shared access token every visitor must give once (a form, or ?token= in a link). The
    minimum for a team; a reverse proxy with real login is better."""

    @field_validator("token")
    @classmethod
    def _long_enough(cls, token: SecretStr | None) -> SecretStr | None:
        """The token without surrounding space (as pasted from a file), checked as used."""
        if token is None:
            return None
        stripped = token.get_secret_value().strip()
        if len(stripped) < MIN_TOKEN_CHARS:
            raise ValueError(
                f"use at least {MIN_TOKEN_CHARS} characters, e.g. from `python -c "
                '"import secrets; print(secrets.token_urlsafe())"`'
            )
        return SecretStr(stripped)

    @property
    def stores(self) -> tuple[Path, ...]:
        """Every store shown, in the order given."""
        return (self.store, *self.more_stores)

    @property
    def is_remote(self) -> bool:
        """Whether other machines may reach the app."""
        # web.security needs starlette: imported here so that the CLI can read this config's
        # defaults for --help, and check the web extra, without it.
        from rulebench.web.security import is_loopback

        return not is_loopback(self.host)


def check_can_start(config: ServeConfig) -> None:
    """Refuse what would stop the server once started, each as one line before it starts.

    Raises:
        StoreError: a missing store, or a run id two stores hold with different content.
        ConfigError: the port cannot be bound (`check_port`).
    """
    from rulebench.engine.store.store_set import StoreSet

    with StoreSet.open(config.stores) as stores:
        stores.check_shared_runs()
    check_port(config)


def check_serve_config(config: ServeConfig) -> None:
    """Refuse a missing web extra with its hint, and a non-local bind without `allow_remote`."""
    missing = missing_modules(WEB_MODULES)
    if missing:
        raise ConfigError(
            f"rulebench serve needs {', '.join(missing)}, not installed: {INSTALL_HINT}"
        )
    if config.is_remote and not config.allow_remote:
        raise ConfigError(
            f"--host {config.host} is reachable from other machines, and the explorer has no "
            "login: anyone who reaches it reads every prompt, reply and config in the store. "
            f"Serve on {DEFAULT_HOST} (the default), or pass --allow-remote to mean it"
        )


GRACEFUL_STOP_S = 3
"""How long a stopped server waits for replies in flight before cancelling them: a playground
reply from a model on the CPU can take a minute, and Ctrl-C should not wait for it."""


class _QuietStopCancellations(logging.Filter):
    """Drop uvicorn's reports of the replies a stop cancels: expected, not errors.

    Without it, each cancelled reply prints an ERROR line and a CancelledError traceback
    before the command's own "Interrupted. The server stopped." line.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep every record but the cancellation notice and a cancelled request's traceback."""
        cancelled = record.exc_info is not None and isinstance(
            record.exc_info[1], asyncio.CancelledError
        )
        return not cancelled and not record.getMessage().startswith("Cancel ")


def create_missing_store(config: ServeConfig) -> bool:
    """Create the first store, empty, when nothing is at its path yet; whether it did.

    So a newcomer can open the playground before any run. Only the first store: it is the
    one `rulebench run` writes to by default and the playground's cache; a further `--store`
    that is missing is more likely a typo, and stays the store's one-line error (and then
    nothing is created).
    """
    if config.store.exists() or not all(path.exists() for path in config.more_stores):
        return False
    from rulebench.engine.store.database import Store

    Store(config.store).close()  # creates the folder and the schema
    return True


def serve(config: ServeConfig) -> None:
    """Run the explorer until interrupted (blocks); a missing first store is created empty."""
    check_serve_config(config)
    create_missing_store(config)
    import uvicorn

    from rulebench.web.app import create_app
    from rulebench.web.security import allowed_hosts
    from rulebench.web.token_gate import protect

    app = create_app(
        config.stores,
        allowed_hosts(config.host),
        served_playground(config),
        show_paths=not (config.is_remote or config.allow_remote),
    )
    token = None if config.token is None else config.token.get_secret_value()
    logging.getLogger("uvicorn.error").addFilter(_QuietStopCancellations())
    uvicorn.run(
        protect(app, token),
        host=config.host,
        port=config.port,
        log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_STOP_S,
    )


def served_playground(config: ServeConfig) -> PlaygroundConfig:
    """The playground as served: others reaching it get the allowed models only, and quotas.

    `allow_remote` on a loopback address means the same (a reverse proxy hands it others).
    """
    remote = config.is_remote or config.allow_remote
    return config.playground.model_copy(
        update={
            "any_model": not remote,
            "quotas": config.quotas if remote else Quotas.unlimited(),
            "show_paths": not remote,
        }
    )


def check_port(config: ServeConfig) -> None:
    """ConfigError naming the port when it cannot be bound (in use, or not allowed)."""
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As uvicorn binds: a port left in TIME_WAIT by a stopped server is free to it.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((config.host.strip("[]"), config.port))
        except OSError as exc:
            reason = "in use already" if exc.errno == errno.EADDRINUSE else exc.strerror or exc
            raise ConfigError(
                f"cannot serve on {config.host} port {config.port}: {reason} "
                "(stop what listens there, or pick another --port)"
            ) from None
