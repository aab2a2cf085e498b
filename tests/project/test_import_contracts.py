"""The import contracts leave no gap: every package is layered, core imports only pure modules.

import-linter (pyproject.toml, `make lint`) checks the contracts, but only for what they name:
a package missing from the layers, or an I/O module missing from core's forbidden list, would
pass unseen. These tests close both gaps: core's source may import only the modules below,
each allowed for a stated reason, so an `import os` (or any module nobody has judged) fails.
"""

import ast
import tomllib
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "src" / "rulebench" / "core"
CORE_CONTRACT = "core does no I/O and loads no model library"
LAYERS_CONTRACT = "Layers point downward only"

PURE = frozenset({
    "__future__", "typing", "collections", "dataclasses", "contextlib", "enum", "functools",
    "itertools", "types", "abc", "re", "math", "difflib", "fnmatch", "hashlib", "json",
    # Memory only: core.stop's process-wide flag, and seeded generators (random.Random(seed)).
    "threading", "random",
    # A renamed field's FutureWarning goes to the caller's filters; the CLI prints it.
    "warnings",
    "pydantic",
    "rulebench",  # rulebench.core only: the layers contract checks that
})  # fmt: skip
"""Top-level modules core may import: computation on values it is given."""


def _contract(name: str) -> dict[str, Any]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [c for c in pyproject["tool"]["importlinter"]["contracts"] if c["name"] == name]
    return cast(dict[str, Any], contract)


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
    contract = _contract(CORE_CONTRACT)
    assert contract["type"] == "forbidden" and contract["source_modules"] == ["rulebench.core"]
    forbidden = set(contract["forbidden_modules"])
    io_modules = {"os", "sys", "io", "pathlib", "glob", "subprocess", "importlib", "socket"}
    assert io_modules | {"urllib", "http", "sqlite3", "logging", "time", "aiohttp"} <= forbidden
    assert not forbidden & PURE


def test_every_package_of_rulebench_sits_in_a_layer() -> None:
    layered = {
        module.strip()
        for line in _contract(LAYERS_CONTRACT)["layers"]
        for module in line.replace(":", "|").split("|")
    }
    package = ROOT / "src" / "rulebench"
    found = {
        f"rulebench.{path.stem if path.is_file() else path.name}"
        for path in package.iterdir()
        if (path.suffix == ".py" and not path.name.startswith("_"))
        or (path / "__init__.py").is_file()
    }
    assert found - layered == set(), "not in the layers contract, so never checked"
