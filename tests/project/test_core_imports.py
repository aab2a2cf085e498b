"""core imports only pure modules, so the "core does no I/O" contract cannot miss a new one.

import-linter's contract (pyproject.toml) forbids a list of I/O modules; a module missing from
that list would pass it. This test reads core's source and allows only the modules below,
each for a stated reason, so an `import os` (or any module nobody has judged) fails here.
"""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "src" / "rulebench" / "core"
CONTRACT = "core does no I/O and loads no model library"

PURE = frozenset({
    "__future__", "typing", "collections", "dataclasses", "contextlib", "enum", "functools",
    "itertools", "types", "abc", "re", "math", "difflib", "fnmatch", "hashlib", "json",
    # Memory only: core.stop's process-wide flag, and seeded generators (random.Random(seed)).
    "threading", "random",
    # A renamed field's FutureWarning goes to the caller's filters; the CLI prints it.
    "warnings",
    "pydantic",
    "rulebench",
})  # fmt: skip
"""Top-level modules core may import: computation on values it is given."""


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imported_roots(source: str) -> set[str]:
    """The top-level modules a module imports at run time (TYPE_CHECKING blocks left out)."""
    tree = ast.parse(source)
    skipped = {
        id(inner)
        for block in ast.walk(tree)
        if _is_type_checking_block(block)
        for inner in ast.walk(block)
    }
    roots = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_scan_sees_imports_inside_functions_but_not_type_only_ones() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pathlib import Path\n"
        "def f() -> None:\n    import os.path\n"
    )
    assert imported_roots(source) == {"typing", "os"}


def test_core_imports_only_pure_modules() -> None:
    found = {
        f"{path.relative_to(CORE)}: {root}"
        for path in sorted(CORE.rglob("*.py"))
        for root in imported_roots(path.read_text(encoding="utf-8"))
        if root not in PURE
    }
    assert not found, "core imports a module not judged pure (see PURE): " + ", ".join(found)


def test_the_contract_forbids_the_io_modules_and_none_judged_pure() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = pyproject["tool"]["importlinter"]["contracts"]
    [contract] = [c for c in contracts if c["name"] == CONTRACT]
    assert contract["type"] == "forbidden" and contract["source_modules"] == ["rulebench.core"]
    forbidden = set(contract["forbidden_modules"])
    io_modules = {"os", "sys", "io", "pathlib", "glob", "subprocess", "importlib", "socket"}
    assert io_modules | {"urllib", "http", "sqlite3", "logging", "time", "aiohttp"} <= forbidden
    assert not forbidden & PURE
