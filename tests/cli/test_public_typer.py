"""The command line uses typer's public API only: typer ships its own copy of click privately."""

from pathlib import Path

import rulebench.cli

CLI = Path(rulebench.cli.__file__).parent


def test_no_cli_module_imports_typers_private_click() -> None:
    users = [
        path.name
        for path in sorted(CLI.glob("*.py"))
        if "typer._click" in (text := path.read_text(encoding="utf-8"))
        or "from typer import _click" in text
    ]
    assert users == []
