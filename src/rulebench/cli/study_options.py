"""The options every study command shares (experiment, train ..., attack ...), declared once.

Each command stacks the block onto its own options with `option_stack.with_options` and
takes them packed as `study: StudyOptions`, as a `run` command takes `run: RunOptions`.
"""

from pathlib import Path
from typing import Annotated, Any, NamedTuple

from rulebench.cli.option_stack import OptionBlock, keyword
from rulebench.cli.options import JsonOption, StoreOption, concurrency_flag, output_folder_flag


class StudyOptions(NamedTuple):
    """Where a study command's runs and files go and how it prints, passed on in one piece."""

    store: Path | None = None
    """--store: the results store (None: the default one)."""
    as_json: bool = False
    """--json: machine-readable JSON on stdout."""
    output: Path | None = None
    """-o/--output, where the command writes a folder (None: the config's default)."""
    concurrency: int | None = None
    """--concurrency, where the command runs items (None: the config's default)."""


STUDY_DEFAULTS = StudyOptions()
"""The default a command's signature gives `study` (after options with defaults, Python needs
one); `with_options` always passes the options' values instead."""


def study_options(
    output: object = None, concurrency: str | None = None, *, has_store: bool = True
) -> OptionBlock:
    """The block: --concurrency, -o/--output, --store and --json, in that --help order.

    Args:
        output: the command's -o/--output option (`output_option`); None: it writes no folder,
            or takes a folder its own way.
        concurrency: the default --concurrency shows (the config's); None: no such option.
        has_store: False for a command that writes files only (no --store).
    """
    parameters = []
    if concurrency is not None:
        option = Annotated[int | None, concurrency_flag(concurrency)]
        parameters.append(keyword("concurrency", option, None))
    if output is not None:
        parameters.append(keyword("output", output, None))
    if has_store:
        parameters.append(keyword("store", StoreOption, None))
    parameters.append(keyword("as_json", JsonOption, False))
    return OptionBlock(tuple(parameters), _pack)


def output_option(help_text: str, shown: str | bool) -> Any:
    """A -o/--output option for `study_options`: what goes in the folder, its default shown."""
    return Annotated[Path | None, output_folder_flag(help_text, shown)]


def _pack(values: dict[str, Any]) -> StudyOptions:
    return StudyOptions(**values)
