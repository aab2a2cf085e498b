"""Options several commands share, declared once and stacked onto each command's own.

As inspect_ai stacks click options with decorators, `with_options` stacks blocks of shared
options onto a command. typer reads a command's options from its signature, so the decorator
rewrites the signature: the command takes one parameter per block (`run: RunOptions`), typer
sees that block's options in its place, and their values reach the command packed in it.
"""

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

Command = Callable[..., None]


class OptionBlock(NamedTuple):
    """A block of shared options and how their values are packed for the command."""

    parameters: tuple[inspect.Parameter, ...]
    """The options, as keyword parameters in --help order (`keyword` builds them)."""
    pack: Callable[[dict[str, Any]], object]
    """The command's argument made of the options' values, by parameter name."""
    last: bool = False
    """List the options after the command's own rather than where its parameter stands."""


def keyword(name: str, annotation: object, default: object) -> inspect.Parameter:
    """One option of a block: a keyword parameter typer reads (`Annotated[type, Option]`)."""
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def with_options(**blocks: OptionBlock) -> Callable[[Command], Command]:
    """Give a command the options of each block; its parameter `name` receives block `name`.

    A direct call (bare `rulebench run` calls a command's function) may leave options out:
    they take their declared defaults.
    """

    def decorate(command: Command) -> Command:
        combined = _combined(inspect.signature(command), blocks)

        @functools.wraps(command)
        def with_blocks(*args: object, **kwargs: object) -> None:
            bound = combined.bind(*args, **kwargs)
            bound.apply_defaults()
            given = dict(bound.arguments)
            for name, block in blocks.items():
                given[name] = block.pack({p.name: given.pop(p.name) for p in block.parameters})
            command(**given)

        # typer reads the options from the signature: the command's own and the blocks'.
        with_blocks.__signature__ = combined  # type: ignore[attr-defined]  # read by inspect
        return with_blocks

    return decorate


def _combined(signature: inspect.Signature, blocks: Mapping[str, OptionBlock]) -> inspect.Signature:
    """The signature typer sees: each block's options in place of its parameter (or last).

    Every parameter after the first block's options becomes keyword-only, as they are: typer
    passes every value by name, and Python allows no positional parameter after them.
    """
    missing = [name for name in blocks if name not in signature.parameters]
    if missing:
        raise TypeError(f"the command takes no parameter {', '.join(missing)} for its options")
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        block = blocks.get(parameter.name)
        if block is None:
            keyword_only = any(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)
            kind = inspect.Parameter.KEYWORD_ONLY if keyword_only else parameter.kind
            parameters.append(parameter.replace(kind=kind))
        elif not block.last:
            parameters.extend(block.parameters)
    parameters.extend(p for block in blocks.values() if block.last for p in block.parameters)
    return signature.replace(parameters=parameters)
