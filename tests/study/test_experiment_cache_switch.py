"""Experiment files say `use_cache`, as the API does; `no_cache`, the old spelling, still loads."""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.study.experiment import load_experiment

FILE = """\
[defaults]
{defaults}

[[models]]
spec = "scripted/echo"

[[tasks]]
task = "smoke"
{task}
"""


def cache_used(tmp_path: Path, defaults: str = "", task: str = "") -> bool:
    path = tmp_path / "exp.toml"
    path.write_text(FILE.format(defaults=defaults, task=task), encoding="utf-8")
    [planned] = load_experiment(path, tmp_path / "s.sqlite").runs
    assert planned.spec is not None
    return planned.spec.use_cache


def test_the_cache_is_used_unless_a_file_says_otherwise(tmp_path: Path) -> None:
    assert cache_used(tmp_path)
    assert not cache_used(tmp_path, defaults="use_cache = false")
    assert cache_used(tmp_path, defaults="use_cache = false", task="use_cache = true")


@pytest.mark.parametrize(("old", "used"), [("true", False), ("false", True)])
def test_the_old_no_cache_still_works_with_one_warning(
    tmp_path: Path, old: str, used: bool
) -> None:
    with pytest.warns(FutureWarning, match="'no_cache' is now 'use_cache'"):
        assert cache_used(tmp_path, defaults=f"no_cache = {old}") is used
    with pytest.warns(FutureWarning):
        assert cache_used(tmp_path, task=f"no_cache = {old}") is used


def test_both_spellings_or_a_non_boolean_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="give use_cache only"):
        cache_used(tmp_path, defaults="no_cache = true\nuse_cache = true")
    with pytest.raises(ConfigError, match=r"no_cache .* is true or false"):
        cache_used(tmp_path, task='no_cache = "yes"')
