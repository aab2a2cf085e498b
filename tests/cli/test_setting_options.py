"""The run commands' setting options are generated from `RunSettings`' fields, not retyped."""

from pathlib import Path
from typing import Any

import typer
import typer.main

from rulebench.cli import run
from rulebench.cli.options import RunOptions
from rulebench.cli.setting_options import SPELLINGS, setting_flag
from rulebench.core.shards import Shard
from rulebench.engine.run_settings import RunSettings


def test_every_setting_has_a_spelling_on_the_command_line() -> None:
    # reasoning is three flags of its own (cli.reasoning_flags).
    assert set(SPELLINGS) == set(RunSettings.model_fields) - {"reasoning"}


def test_an_options_help_and_bounds_are_its_fields() -> None:
    option: Any = setting_flag("max_tokens")
    assert option.help == RunSettings.model_fields["max_tokens"].description
    assert (option.min, option.max) == (1, None)
    assert setting_flag("temperature").min == 0.0
    assert setting_flag("limit").min == 0
    # --no-cache says use_cache the other way round.
    assert setting_flag("use_cache").help == "Neither read nor write the response cache."


def test_the_run_commands_show_the_fields_help() -> None:
    group = typer.main.get_group(run.app)
    command = group.get_command(typer.Context(group), "smoke")
    assert command is not None
    helps = {param.name: getattr(param, "help", None) for param in command.params}
    for name, spelling in SPELLINGS.items():
        description = " ".join((RunSettings.model_fields[name].description or "").split())
        assert helps[spelling.parameter] == (spelling.help or description), name


def test_the_cli_options_fill_every_setting() -> None:
    """Options unlike every default: each setting changes, so none is left out on the way."""
    options = RunOptions(
        models=("scripted/echo",),
        model_args=["delay_s=1"],
        base_url="http://127.0.0.1:9/v1",
        concurrency=3,
        limit=2,
        max_tokens=5,
        temperature=0.5,
        seed=7,
        use_cache=False,
        shard="1/2",
        thinking="on",
        output=Path("out"),
        order="grouped",
    )
    settings = options.settings()
    defaults = RunSettings()
    unchanged = [
        name
        for name in RunSettings.model_fields
        if getattr(settings, name) == getattr(defaults, name)
    ]
    assert not unchanged
    assert settings.shard == Shard(index=1, count=2)
    assert settings.use_cache is False and settings.sampling_seed == 7
