"""From what a front end was given for `rulebench serve` to the `ServeConfig` it runs with.

The command line fills `ServeOptions` from its options; a script or another front end fills
it from its own arguments, and `serve_config` turns either into the same validated config:
the embedded model when no model is named, the default store when none is given, and
`--quota NAME=N` settings checked by name against `Quotas`.
"""

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rulebench.core.errors import ConfigError
from rulebench.core.validation import validate_into
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.serve import ServeConfig


class ServeOptions(BaseModel):
    """What a front end was asked to serve, as given: None (or empty) means "not given".

    The fields that fill a `ServeConfig` or `PlaygroundConfig` field directly are documented
    there; those documented here are given in another form than the config holds.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    stores: tuple[Path, ...] = ()
    """Results store (SQLite file); repeat it to browse several stores as one, each read where
    it is; a folder stands for the *.sqlite files in it. Default: $RULEBENCH_STORE, else
    rulebench.sqlite in ./rulebench-results/."""
    host: str | None = None
    port: int | None = None
    allow_remote: bool = False
    token: SecretStr | None = None
    quotas: tuple[str, ...] = ()
    """A per-visitor allowance when serving others, e.g. model_calls_per_minute=5 or
    saves_per_hour=none (repeatable; names and defaults: the red-teaming guide)."""
    model: str | None = None
    model_args: dict[str, str] = Field(default_factory=dict)
    base_url: str | None = None
    save_dir: Path | None = None
    upstream: Path | None = None
    """Your clone of normster/llm_rules: the playground then offers RuLES's own instruction
    text beside rulebench's (read from this clone only)."""
    allowed_models: tuple[str, ...] = ()


def serve_config(options: ServeOptions) -> ServeConfig:
    """The server's settings: the options given over `ServeConfig`'s defaults.

    Raises:
        ConfigError: a bad model spec, quota setting or value, naming it.
    """
    from rulebench.engine.store.location import default_store_path

    playground = playground_config(options)
    given = {
        "host": options.host,
        "port": options.port,
        "token": options.token,
        "quotas": parse_quotas(options.quotas),
    }
    first, *more = options.stores or (default_store_path(),)
    raw = {
        "store": first,
        "more_stores": tuple(more),
        "allow_remote": options.allow_remote,
        "playground": playground,
        **{name: value for name, value in given.items() if value is not None},
    }
    return validate_into(ServeConfig, raw, "serve")


def playground_config(options: ServeOptions) -> PlaygroundConfig:
    """The playground's settings from the options given (the rest: `PlaygroundConfig`'s)."""
    from rulebench.models.registry import resolve_spec
    from rulebench.scenarios.upstream.text import resolve_wording

    given_dir = {} if options.save_dir is None else {"save_dir": options.save_dir}
    upstream = options.upstream
    return PlaygroundConfig(
        **given_dir,
        model=resolve_spec(options.model),  # None: the embedded default; "" is refused
        model_args=options.model_args,
        base_url=options.base_url,
        upstream=None if upstream is None else resolve_wording("upstream", upstream),
        allowed_models=tuple(resolve_spec(spec) for spec in options.allowed_models),
    )


def parse_quotas(settings: tuple[str, ...]) -> dict[str, str | None] | None:
    """`NAME=N` settings as the `Quotas` fields they set ("none": no limit); None if none.

    The names and numbers are checked by `Quotas` itself, so an unknown name is refused with
    the field's path (`quotas.games_per_hour`).
    """
    if not settings:
        return None
    given: dict[str, str | None] = {}
    for setting in settings:
        name, sign, value = setting.partition("=")
        if not sign or not name.strip():
            raise ConfigError(f"--quota {setting!r}: expected NAME=N, e.g. saves_per_hour=20")
        given[name.strip()] = None if value.strip().lower() == "none" else value.strip()
    return given
