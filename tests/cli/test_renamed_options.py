"""Old option spellings still work for one release and say so; both spellings is an error."""

import pytest

from rulebench.cli.config_defaults import default_of, shown_default
from rulebench.cli.renamed_options import pick_renamed
from rulebench.core.errors import ConfigError
from rulebench.scenarios.task import ScenarioConfig


def test_old_spelling_is_used_and_warned(capsys: pytest.CaptureFixture[str]) -> None:
    assert pick_renamed(None, 7, new="--per-group", old="--samples") == 7
    assert "--samples is now --per-group" in capsys.readouterr().err


def test_new_spelling_is_silent(capsys: pytest.CaptureFixture[str]) -> None:
    assert pick_renamed(3, None, new="--per-group", old="--samples") == 3
    assert capsys.readouterr().err == ""


def test_both_spellings_refused() -> None:
    with pytest.raises(ConfigError, match="give --per-group only"):
        pick_renamed(3, 7, new="--per-group", old="--samples")


def test_help_default_is_the_configs() -> None:
    assert default_of(ScenarioConfig, "seed") == 0
    assert shown_default(ScenarioConfig, "suites") == "basic"
    with pytest.raises(KeyError):
        default_of(ScenarioConfig, "no_such_field")
