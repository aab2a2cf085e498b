"""Start-up imports only what the command uses (issue 14: `run loadtest -n 1` under 0.5 s).

Nothing here is timed (the machine is shared): the tests pin which modules load, which is
what made start-up slow. `bench/bench_startup.py` measures the times.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.cli.commands import COMMANDS
from rulebench.cli.entry import PYDANTIC_PLUGINS_VARIABLE
from rulebench.testing.mock_server import MockServerConfig, serve_in_thread

from tests.command import ENTRY, rulebench

HEAVY = ("numpy", "torch", "transformers", "llama_cpp", "fastapi", "uvicorn", "matplotlib")
"""Libraries a run on a remote or scripted model never needs (each costs 50 ms to seconds)."""
OTHER_COMMANDS = (
    "rulebench.cli.listing",
    "rulebench.cli.attack",
    "rulebench.cli.attack_gcg",
    "rulebench.cli.play",
    "rulebench.cli.train",
    "rulebench.cli.serve",
    "rulebench.cli.report",
    "rulebench.cli.runs",
    # `rulebench run`'s other subcommands (rulebench.cli.commands.RUN_SUBCOMMANDS).
    "rulebench.cli.run_inferential",
    "rulebench.cli.run_scenarios",
    "rulebench.cli.run_judge",
)
"""Command modules `rulebench run loadtest` has no use for."""
REPORT = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: print('LOADED ' + json.dumps(sorted(sys.modules)), file=sys.stderr))"
)


def loaded_modules(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded when `code` ends."""
    result = subprocess.run(
        [sys.executable, "-c", f"{REPORT}\n{code}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.startswith("LOADED ")]
    return set(json.loads(line.removeprefix("LOADED ")))


def roots(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.subprocess
def test_importing_the_cli_loads_no_command_and_no_library() -> None:
    modules = loaded_modules("import rulebench.cli.app")
    assert not roots(modules) & {*HEAVY, "aiohttp", "pydantic", "jinja2", "sqlite3"}
    ours = {name for name in modules if name.startswith("rulebench.")}
    assert ours <= {
        "rulebench.cli",
        "rulebench.cli.app",
        "rulebench.cli.commands",
        "rulebench.cli.console",
        # The top-level --include option; it imports the registry only when given a folder.
        "rulebench.cli.include",
        "rulebench.report",
        "rulebench.report.untrusted",
        # The one escaping function lives in core (the engine's exports use it too); it
        # imports nothing but `re`.
        "rulebench.core",
        "rulebench.core.text",
        "rulebench.core.version",  # the package's version: one constant
    }
    # The version is a constant, not looked up in the installed package's metadata.
    assert "importlib.metadata" not in modules


@pytest.mark.subprocess
def test_a_loadtest_run_loads_only_the_run_commands(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    args = ["run", "loadtest", "-n", "1", "-m", "scripted/echo", "--store", str(store)]
    modules = loaded_modules(f"sys.argv = ['rulebench', *{args!r}]\n{ENTRY}")
    assert "rulebench.checks.loadtest" in modules and store.exists()  # it did run
    assert not roots(modules) & set(HEAVY)
    assert not modules & set(OTHER_COMMANDS)
    assert not {m for m in modules if m.startswith(("rulebench.web", "rulebench.attack"))}
    assert not {m for m in modules if m.startswith(("rulebench.train", "rulebench.study"))}
    assert "rulebench.engine.store.browse" not in modules  # the explorer's reads
    # Neither the inferential tasks and scenarios nor the report's document and charts
    # (read only for a price table, and none is given).
    assert not {
        m for m in modules if m.startswith(("rulebench.inferential", "rulebench.scenarios"))
    }
    assert not {
        m for m in modules if m.startswith(("rulebench.report.usage", "rulebench.report.plots"))
    }


@pytest.mark.subprocess
def test_a_run_on_a_server_loads_the_retry_library_only_when_a_request_fails(
    tmp_path: Path,
) -> None:
    """tenacity serves retries alone; a run whose requests all succeed never needs it."""

    def run_against(config: MockServerConfig, store: Path) -> set[str]:
        with serve_in_thread(config) as server:
            args = [
                "run", "loadtest", "-n", "2", "-m", "openai-api/mock/m", "--base-url",
                server.url, "--store", str(store), "--no-cache", "--fail-on-error", "1",
                "-M", "max_retries=1", "-M", "initial_backoff_s=0",
            ]  # fmt: skip
            return loaded_modules(f"sys.argv = ['rulebench', *{args!r}]\n{ENTRY}")

    clean = run_against(MockServerConfig(), tmp_path / "clean.sqlite")
    assert "rulebench.models.openai.backend" in clean and "tenacity" not in clean
    failing = MockServerConfig(fault_rate=1.0, fault_kinds=("500",))
    assert "tenacity" in run_against(failing, tmp_path / "failing.sqlite")


SCANS_COUNTED = (
    "import atexit, importlib.metadata, sys\n"
    "calls = []\n"
    "real = importlib.metadata.entry_points\n"
    "def counted(**params):\n"
    "    calls.append(params)\n"
    "    return real(**params)\n"
    "importlib.metadata.entry_points = counted\n"
    "atexit.register(lambda: print(f'SCANS {len(calls)}', file=sys.stderr))"
)
"""Counts entry-point scans (pydantic's plugin search is one) and reports them at exit."""


def entry_point_scans(tmp_path: Path, env: dict[str, str]) -> int:
    store = tmp_path / f"s{len(env)}.sqlite"
    args = ["run", "loadtest", "-n", "1", "-m", "scripted/echo", "--store", str(store)]
    result = rulebench(*args, env=env, preamble=SCANS_COUNTED)
    assert result.returncode == 0, result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.startswith("SCANS ")]
    return int(line.removeprefix("SCANS "))


@pytest.mark.subprocess
def test_a_run_skips_pydantic_plugins_unless_the_user_asks_for_them(tmp_path: Path) -> None:
    """Pydantic's plugin search reads every installed distribution's entry points (a fifth of
    a short command): the console script turns it off, and a user's own setting stands."""
    environment = {k: v for k, v in os.environ.items() if k != PYDANTIC_PLUGINS_VARIABLE}
    assert entry_point_scans(tmp_path, environment) == 0
    assert entry_point_scans(tmp_path, {**environment, PYDANTIC_PLUGINS_VARIABLE: ""}) >= 1


def test_help_lists_every_command_in_its_place() -> None:
    result = CliRunner().invoke(app, ["--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    listed = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("│ ")]
    commands = [name for name in listed if name in COMMANDS]
    # irft: the hidden old spelling of `train compare`, still run but not listed.
    assert commands == [name for name in COMMANDS if name != "irft"]


def test_a_mistyped_command_is_still_matched_against_every_command() -> None:
    result = CliRunner().invoke(app, ["rnus", "list"])
    assert result.exit_code == 2 and "Did you mean 'runs'" in result.output


@pytest.mark.slow
def test_a_run_answered_from_the_cache_never_loads_the_embedded_model(tmp_path: Path) -> None:
    """The first run loads llama.cpp and keeps the GGUF's facts; the same run again is all
    cache hits, so neither llama_cpp nor numpy is imported."""
    store = tmp_path / "s.sqlite"
    args = ["run", "loadtest", "-n", "2", "--store", str(store)]
    code = (
        f"import os; os.environ['RULEBENCH_CACHE_DIR'] = {str(tmp_path / 'cache')!r}\n"
        f"sys.argv = ['rulebench', *{args!r}]\n{ENTRY}"
    )
    first = loaded_modules(code)
    assert "llama_cpp" in first  # the embedded model is the default and answered
    again = loaded_modules(code)
    assert "rulebench.models.llamacpp.backend" in again  # the same model, built from cached facts
    assert not roots(again) & {"llama_cpp", "numpy"}
