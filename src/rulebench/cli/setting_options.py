"""The run settings as command-line options, generated from `RunSettings`' fields.

The help text, the bounds and the meaning of each option are its field's (engine.run_settings);
the table here holds only the command line's own spelling: the flags (short ones such as -M,
-n; `--no-cache` for `use_cache`), the type typer parses, where it differs from the field's
(repeated -M values, a shard as text), and a metavar. `reasoning` is three flags of its own
(cli.reasoning_flags).
"""

from typing import Annotated, Any, NamedTuple

from rulebench.cli.field_options import field_option
from rulebench.engine.dispatch_order import DispatchOrder
from rulebench.engine.run_settings import RunSettings


class Spelling(NamedTuple):
    """How the command line spells one run setting."""

    parameter: str
    """The command's parameter (click's name for the option)."""
    flags: tuple[str, ...]
    kind: object
    """The type typer parses: the value before the CLI turns it into the setting's."""
    metavar: str | None = None
    help: str | None = None
    """Only where the flag says the field the other way round (`--no-cache`)."""


SPELLINGS: dict[str, Spelling] = {
    "model_args": Spelling("model_arg", ("--model-arg", "-M"), list[str] | None),
    "base_url": Spelling("base_url", ("--base-url",), list[str] | None, "<url>"),
    "max_tokens": Spelling("max_tokens", ("--max-tokens",), int | None),
    "temperature": Spelling("temperature", ("--temperature",), float | None),
    "sampling_seed": Spelling("sampling_seed", ("--sampling-seed",), int | None),
    "concurrency": Spelling("concurrency", ("--concurrency", "-c"), int | None),
    "limit": Spelling("limit", ("--limit", "-n"), int | None),
    "use_cache": Spelling(
        "no_cache", ("--no-cache",), bool, help="Neither read nor write the response cache."
    ),
    "shard": Spelling("shard", ("--shard",), str | None, "<I/N>"),
    "order": Spelling("order", ("--order",), DispatchOrder | None),
}
"""Every run setting but `reasoning`, by field name (a test checks none is missing)."""


def setting_option(name: str, shown: str | bool = False, help_text: str | None = None) -> Any:
    """Run setting `name` as an option annotation: `Annotated[type, typer.Option(...)]`.

    Args:
        name: a `RunSettings` field.
        shown: the default --help shows (text read from a config), or False for none.
        help_text: a command's own wording of the field, where it means more there.
    """
    flag = setting_flag(name, shown, help_text)
    return Annotated[SPELLINGS[name].kind, flag]


def setting_flag(name: str, shown: str | bool = False, help_text: str | None = None) -> Any:
    """Run setting `name`'s `typer.Option` (see `setting_option`), for a command's own type."""
    spelling = SPELLINGS[name]
    return field_option(
        RunSettings,
        name,
        *spelling.flags,
        help=help_text or spelling.help,
        shown=shown,
        metavar=spelling.metavar,
    )


def parameter_name(name: str) -> str:
    """The CLI parameter that carries run setting `name` (`use_cache`: `no_cache`)."""
    return SPELLINGS[name].parameter
