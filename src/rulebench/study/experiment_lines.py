"""Where a field sits in an experiment file, so a validation error can name its line.

tomllib and yaml.safe_load return plain values without positions. For TOML the line is found
by reading the text (the n-th `[[models]]` header, then `field =` below it); for YAML, from
the node tree PyYAML composes. Either may not find a line (an inline table, a flow list): the
error then names the table and field alone.
"""

import importlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

Loc = Sequence[int | str]
"""A pydantic error location: ("models", 1, "base_url")."""


def toml_line(text: str, loc: Loc) -> int | None:
    """The 1-based line of `loc` in a TOML document: its table header, or the key below it."""
    if not loc or not isinstance(loc[0], str):
        return None
    lines = text.splitlines()
    table, rest = loc[0], list(loc[1:])
    first = rest[0] if rest else None
    number = first if isinstance(first, int) else 0
    if isinstance(first, int):
        rest.pop(0)
    header = re.compile(r"^\s*\[\[?\s*" + re.escape(table) + r"\s*\]\]?\s*(#.*)?$")
    starts = [index for index, line in enumerate(lines) if header.match(line)]
    if number >= len(starts):
        return None
    start = starts[number]
    if not rest or not isinstance(rest[0], str):
        return start + 1
    key = re.compile(r"^\s*" + re.escape(rest[0]) + r"\s*=")
    for index in range(start + 1, len(lines)):
        if lines[index].lstrip().startswith("["):
            break
        if key.match(lines[index]):
            return index + 1
    return start + 1


def yaml_line(text: str, loc: Loc) -> int | None:
    """The 1-based line of `loc` in a YAML document: the deepest node along the path."""
    yaml = pyyaml()
    try:
        node: Any = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    line = None
    for part in loc:
        node = _child(node, part)
        if node is None:
            break
        line = int(node.start_mark.line) + 1
    return line


def pyyaml() -> Any:
    """PyYAML, imported when a YAML file is read (it ships no type hints, hence Any).

    Raises:
        ImportError: PyYAML is not installed (the `yaml` extra installs it).
    """
    return importlib.import_module("yaml")


def _child(node: Any, part: int | str) -> Any:
    """The node under `part`: a mapping's value for a key, a sequence's item for an index."""
    yaml = pyyaml()
    if isinstance(node, yaml.MappingNode) and isinstance(part, str):
        return next((value for key, value in node.value if key.value == part), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return node.value[part]
    return None


Format = Literal["toml", "yaml"]
_TABLES = {"models": "[[models]]", "tasks": "[[tasks]]"}


class Places:
    """Names places in one file: "exp.toml:12: [[models]] #2"."""

    def __init__(self, path: Path, kind: Format, text: str) -> None:
        self.path, self.kind, self.text = path, kind, text

    def place(self, loc: Loc, note: str = "") -> str:
        """The file, line and table of a location (without the field); `note` after the table."""
        line = toml_line(self.text, loc) if self.kind == "toml" else yaml_line(self.text, loc)
        at = f"{self.path}:{line}" if line else str(self.path)
        if not loc or not isinstance(loc[0], str):
            return at
        table = _TABLES.get(loc[0], f"[{loc[0]}]") if self.kind == "toml" else loc[0]
        if len(loc) > 1 and isinstance(loc[1], int):
            table = f"{table} #{loc[1] + 1}"
        return f"{at}: {table}" + (f" ({note})" if note else "")

    def problems(self, exc: ValidationError, prefix: Loc = (), note: str = "") -> str:
        """Every error as "<place>: <field>: <problem>", joined by "; " (one ConfigError line).

        `prefix` is where the validated value sits in the file (a task's options).
        """
        described = []
        for error in exc.errors(include_url=False):
            loc = (*prefix, *error["loc"])
            table_parts = 2 if len(loc) > 1 and isinstance(loc[1], int) else 1
            field = ".".join(str(part) for part in loc[table_parts:])
            problem = f"{field}: {error['msg']}" if field else error["msg"]
            described.append(f"{self.place(loc, note)}: {problem}")
        return "; ".join(described)
