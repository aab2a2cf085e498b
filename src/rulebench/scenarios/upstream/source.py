"""Reading string constants out of the clone's Python files without running them.

The clone's modules import its own package and read asset files at import time; rulebench
never imports them. It parses each file with `ast` and evaluates only the assigned literal
(a parenthesised run of string literals is one constant once parsed).
"""

import ast
from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.upstream.clone import read_source


def parse_module(path: Path, what: str) -> ast.Module:
    """The file's syntax tree; unreadable or not Python is one error naming the file."""
    text = read_source(path, what)
    try:
        return ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise ConfigError(f"{path}: line {exc.lineno}: not valid Python ({exc.msg})") from None


def module_constant(module: ast.Module, path: Path, name: str) -> object:
    """The literal value assigned to a module-level name (the last assignment wins)."""
    node = _assigned(module.body, name)
    if node is None:
        raise ConfigError(f"{path}: has no module-level '{name}'")
    return _literal(node, path, name)


def class_attribute(module: ast.Module, path: Path, cls: str, name: str) -> str:
    """A string class attribute set in the class's own body (inherited ones do not count)."""
    found = [n for n in module.body if isinstance(n, ast.ClassDef) and n.name == cls]
    if not found:
        raise ConfigError(f"{path}: has no class {cls}")
    node = _assigned(found[-1].body, name)
    if node is None:
        raise ConfigError(f"{path}: class {cls} has no attribute '{name}'")
    value = _literal(node, path, f"{cls}.{name}")
    if not isinstance(value, str):
        raise ConfigError(f"{path}: class {cls}: '{name}' is not a string literal")
    return value


def _assigned(body: list[ast.stmt], name: str) -> ast.expr | None:
    value: ast.expr | None = None
    for statement in body:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                value = statement.value
        elif (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == name
            and statement.value is not None
        ):
            value = statement.value
    return value


def _literal(node: ast.expr, path: Path, name: str) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ConfigError(
            f"{path}: line {node.lineno}: '{name}' is not a plain literal "
            "(rulebench reads the text without running the clone's code)"
        ) from None
