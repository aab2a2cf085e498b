"""The options every `run` command shares are declared once and reach the library the same way."""

from pathlib import Path

import typer
import typer.core
import typer.main
from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli import run
from rulebench.cli.options import _SHARED
from rulebench.engine.catalog import config_type, task_config
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec

SHARED_FLAGS = {
    "model": "--model",
    "model_arg": "--model-arg",
    "base_url": "--base-url",
    "concurrency": "--concurrency",
    "limit": "--limit",
    "max_tokens": "--max-tokens",
    "temperature": "--temperature",
    "seed": "--seed",
    "sampling_seed": "--sampling-seed",
    "no_cache": "--no-cache",
    "store": "--store",
    "as_json": "--json",
    "fail_on_error": "--fail-on-error",
    "output": "--output",
    "shard": "--shard",
    "order": "--order",
    "thinking": "--thinking",
    "reasoning_effort": "--reasoning-effort",
    "reasoning_tags": "--reasoning-tags",
}


def test_every_run_command_takes_every_shared_option() -> None:
    assert set(_SHARED) == set(SHARED_FLAGS)
    group = typer.main.get_group(run.app)
    context = typer.Context(group)
    for name in ("smoke", "loadtest", "inferential", "scenarios", "judge"):
        command = group.get_command(context, name)
        assert command is not None
        flags = {param.name: param.opts[0] for param in command.params}
        for shared, flag in SHARED_FLAGS.items():
            assert flags.get(shared) == flag, (name, shared)


def test_a_commands_own_defaults_survive_the_shared_declaration() -> None:
    group = typer.main.get_group(run.app)
    context = typer.Context(group)
    defaults = {
        name: next(
            p.default
            for p in command.params
            if isinstance(p, typer.core.TyperOption) and p.name == "concurrency"
        )
        for name in ("smoke", "loadtest", "inferential")
        if (command := group.get_command(context, name)) is not None
    }
    # --help shows the task's default; the option itself gives None, for the library to fill.
    assert {name: str(default) for name, default in defaults.items()} == {
        "smoke": "4",
        "loadtest": "64",
        "inferential": "8",
    }
    assert all(callable(default) and default() is None for default in defaults.values())
    # The library fills what the user left out, from the task's config.
    filled = {
        name: make_spec(name, "scripted/echo", None, RunSettings()).concurrency
        for name in ("smoke", "loadtest", "inferential")
    }
    assert filled == {"smoke": 4, "loadtest": 64, "inferential": 8}


def test_the_task_owns_max_tokens_and_temperature_unless_told() -> None:
    cot: dict[str, JsonValue] = {"grid": {"cot": [True]}}
    spec = make_spec("inferential", "scripted/echo", cot, RunSettings())
    assert (spec.generate.max_tokens, spec.generate.temperature) == (320, 0.0)
    told = make_spec("inferential", "scripted/echo", cot, RunSettings(max_tokens=7, temperature=1))
    assert (told.generate.max_tokens, told.generate.temperature) == (7, 1.0)
    resolved = task_config("inferential", cot).resolved_for("scripted/echo")
    assert spec.task_config == resolved.model_dump(mode="json")


def test_a_task_refuses_another_tasks_config_model() -> None:
    import pytest

    from rulebench.core.errors import ConfigError

    with pytest.raises(ConfigError, match="takes InferentialConfig, not ScenarioConfig"):
        task_config("inferential", config_type("scenarios")())


def test_cli_errors_name_the_option_the_api_names_the_field(tmp_path: Path) -> None:
    import pytest

    import rulebench
    from rulebench.cli.app import app
    from rulebench.core.errors import ConfigError

    args = ["run", "smoke", "-m", "scripted/echo", "--temperature", "inf"]
    result = CliRunner().invoke(app, [*args, "--store", str(tmp_path / "s")])
    assert "--temperature: Input should be a finite number" in str(result.exception)
    with pytest.raises(ConfigError, match=r"run smoke: temperature: Input should be a finite"):
        rulebench.run("smoke", "scripted/echo", store=tmp_path / "s", temperature=float("inf"))
