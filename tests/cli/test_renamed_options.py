"""Old option spellings still work for one release and say so; both spellings is an error."""

from pathlib import Path

import pytest

from rulebench.cli.renamed_options import pick_renamed
from rulebench.core.errors import ConfigError

from tests.command import rulebench


def test_old_spelling_is_used_and_warned(capsys: pytest.CaptureFixture[str]) -> None:
    assert pick_renamed(None, 7, new="--per-group", old="--samples") == 7
    assert "--samples is now --per-group" in capsys.readouterr().err


def test_new_spelling_is_silent(capsys: pytest.CaptureFixture[str]) -> None:
    assert pick_renamed(3, None, new="--per-group", old="--samples") == 3
    assert capsys.readouterr().err == ""


def test_both_spellings_refused() -> None:
    with pytest.raises(ConfigError, match="give --per-group only"):
        pick_renamed(3, 7, new="--per-group", old="--samples")


@pytest.mark.subprocess  # the real command: its warnings filter and stderr
def test_an_old_field_name_in_a_file_warns_once_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "old.toml"
    tasks = '[[tasks]]\ntask = "scenarios"\noptions = { scenarios = ["Encryption"], '
    path.write_text(f'[[models]]\nspec = "scripted/echo"\n{tasks}per_behavior = 1 }}\n')
    store = str(tmp_path / "s.sqlite")
    result = rulebench("experiment", str(path), "--store", store, "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if "per_behavior" in line]
    assert said == [
        "warning: scenarios field 'per_behavior' is now 'per_group'; the old name still works "
        "for this release only"
    ]
