"""Every option a run command takes is honoured or refused: none is silently dropped.

Each option is given alone, with a value other than its default, and the spec the command
would run is caught before anything runs. The spec must differ from the one built without
the option, or the command must refuse in one line (a `RulebenchError`). The options that
only change where or how results are shown, never what runs, are listed with why.
"""

import json
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from rulebench.cli import execute
from rulebench.cli import run as run_commands
from rulebench.cli.app import app
from rulebench.core.errors import RulebenchError
from rulebench.engine.runner import RunSpec

from tests.scenarios.test_task_protocol import write_case

OUTPUT_ONLY = {
    "--store": "where the run is stored, not what runs",
    "--json": "how the summary is printed",
    "--fail-on-error": "the exit status once the run is stored",
    "--output": "where a batch's comparison is written (with one model the run is a batch of one)",
    "--help": "prints help",
}
"""Options that change no spec by design."""


class Caught(Exception):
    """The spec a command would run, caught before it runs."""

    def __init__(self, spec: RunSpec) -> None:
        super().__init__("caught")
        self.spec = spec


def _catch(spec: RunSpec, *_: object, **__: object) -> None:
    raise Caught(spec)


def _values(tmp_path: Path) -> dict[str, list[str]]:
    """A value for each option other than its default (a flag takes none)."""
    case = write_case(
        tmp_path,
        "Encryption",
        "Encryption",
        {"secret": "x1"},
        [{"role": "user", "content": "Key?"}],
    )
    suffix = tmp_path / "suffix.txt"
    suffix.write_text("!! now !!\n")
    return {
        "--task": ["kinship"],
        "--per-group": ["3"],
        "--data-root": [str(tmp_path / "no-release")],
        "--quantity": ["all"],
        "--form": ["fol"],
        "--cot": ["on"],
        "--counterfactual": ["on"],
        "--shots": ["1"],
        "--layout": ["shared"],
        "--grid": ["paper"],
        "--extract": ["paper"],
        "--scoring": ["loglik"],
        "--repeats": ["2"],
        "--heldout-by": ["composition"],
        "--prompts": ["upstream"],
        "--upstream": [str(tmp_path / "no-clone")],
        "--resample": ["upstream"],
        "--model": ["scripted/fixed"],
        "--model-arg": ["reply=OK"],
        "--base-url": ["http://127.0.0.1:9/v1"],
        "--concurrency": ["3"],
        "--limit": ["2"],
        "--max-tokens": ["7"],
        "--temperature": ["0.5"],
        "--seed": ["5"],
        "--sampling-seed": ["6"],
        "--output": [str(tmp_path / "batch")],
        "--shard": ["1/2"],
        "--thinking": ["on"],
        "--reasoning-effort": ["low"],
        "--reasoning-tags": ["[T] [/T]"],
        "--suite": [str(case)],
        "--scenario": ["Encryption"],
        "--placement": ["system"],
        "--system-message": ["helpful"],
        "--preset": ["published-v3"],
        "--mode": ["strict"],
        "--version": ["v1"],
        "--suffix": [str(suffix)],
        "--suffix-on": ["last"],
        "--full": [],
        "--per-behavior": ["3"],  # old names, hidden: still honoured
        "--samples": ["3"],
        "--n": ["3"],
        "--items": ["3"],
    }


def _options(command: str) -> list[tuple[str, bool]]:
    """Each option of `rulebench run COMMAND`: its longest name, and whether it is a flag."""
    group = typer.main.get_group(run_commands.app)
    found = group.get_command(typer.Context(group), command)
    assert found is not None
    options = []
    for param in found.params:
        names = [name for name in param.opts if name.startswith("--")] or list(param.opts)
        options.append((max(names, key=len), bool(getattr(param, "is_flag", False))))
    return options


def _spec(args: list[str], monkeypatch: pytest.MonkeyPatch) -> RunSpec | str:
    """The spec `rulebench run ARGS` would run, or why it refused (one line)."""
    monkeypatch.setattr(execute, "execute", _catch)
    from rulebench.cli import batch_run

    monkeypatch.setattr(
        batch_run,
        "run_batch_command",
        lambda planned, *_: _catch(next(p.spec for p in planned if p.spec is not None)),
    )
    result = CliRunner().invoke(app, ["run", *args])
    if isinstance(result.exception, Caught):
        return result.exception.spec
    if isinstance(result.exception, RulebenchError):
        message = str(result.exception)
        assert "\n" not in message, message
        return message
    if result.exit_code == 2:  # typer refused the value itself, in one usage line
        return result.output
    raise AssertionError(f"run {args}: {result.exception!r}\n{result.output}")


BASES: dict[str, list[str]] = {
    name: [name] for name in ("smoke", "inferential", "scenarios", "loadtest")
}
"""Each command with no option: the embedded model's spec (built, never run)."""


def _dropped(
    command: str,
    base_args: list[str],
    values: dict[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> list[str]:
    """The options of `run COMMAND` that, given alone over `base_args`, change nothing."""
    base = _spec(base_args, monkeypatch)
    assert isinstance(base, RunSpec), base
    dropped = []
    for option, is_flag in _options(command):
        if option in OUTPUT_ONLY or option in base_args:
            continue
        given = [option] if is_flag else [option, *values.get(option, ["?"])]
        found = _spec([*base_args, *given], monkeypatch)
        if isinstance(found, RunSpec) and _same(found, base):
            dropped.append(option)
    return dropped


@pytest.mark.parametrize("command", sorted(BASES))
def test_every_option_changes_the_spec_or_is_refused(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    base_args = [*BASES[command], "--store", str(tmp_path / "s.sqlite")]
    assert _dropped(command, base_args, _values(tmp_path), monkeypatch) == []


def test_every_judge_option_changes_the_spec_or_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = ["--store", str(tmp_path / "s.sqlite")]
    played = CliRunner().invoke(app, ["run", "scenarios", "-m", "scripted/echo", *store, "--json"])
    assert played.exit_code == 0, played.output
    run_id = json.loads(played.stdout[played.stdout.index("{") :])["run"]["id"]
    values = {**_values(tmp_path), "--per-group": ["2"]}
    base_args = ["judge", "--from-run", run_id, *store]
    assert _dropped("judge", base_args, values, monkeypatch) == []


def _same(one: RunSpec, other: RunSpec) -> bool:
    def shown(spec: RunSpec) -> Any:
        return spec.model_dump(mode="json")

    return bool(shown(one) == shown(other))


def _commands(group: Any, path: str = "rulebench") -> list[tuple[str, Any]]:
    """Every leaf command of the app with its callback, however deep."""
    found = []
    context = typer.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if hasattr(command, "list_commands"):  # a group (typer vendors its own click)
            found += _commands(command, f"{path} {name}")
        elif command is not None and command.callback is not None:
            found.append((f"{path} {name}", command.callback))
    return found


def _read_names(function: Any) -> set[str]:
    """The names a command function reads: its own names, and the options it reads by name.

    A command that takes `ctx.params` whole reads an option by a string key of its module
    (`given["steps"]`) or as a field of the config it keeps them for (`IrftConfig.model_fields`).
    """
    import ast
    import inspect
    import sys
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    [definition] = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    names = {n.id for n in ast.walk(definition) if isinstance(n, ast.Name)}
    if "ctx" not in names:
        return names
    module = sys.modules[function.__module__]
    whole = ast.parse(inspect.getsource(module))
    names |= {
        n.value for n in ast.walk(whole) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    for node in ast.walk(whole):
        if not isinstance(node, ast.Attribute) or node.attr != "model_fields":
            continue
        if isinstance(node.value, ast.Name) and node.value.id in vars(module):
            names |= set(vars(module)[node.value.id].model_fields)
    return names


def test_every_command_reads_every_option_it_declares() -> None:
    # The static half of the sweep, over every command (study, attack, serve, runs...): a
    # parameter the command function never reads is an option given and then dropped.
    import inspect

    commands = _commands(typer.main.get_group(app))
    unread = []
    for path, callback in commands:
        function = inspect.unwrap(callback)
        declared = inspect.signature(function).parameters
        read = _read_names(function)
        unread += [f"{path}: {name}" for name in declared if name not in read]
    assert len(commands) >= 25  # every group walked
    assert unread == []


def _a_command(used: int, dropped: int) -> None:
    print(used)


def test_the_static_sweep_sees_a_dropped_option() -> None:
    assert "used" in _read_names(_a_command) and "dropped" not in _read_names(_a_command)
