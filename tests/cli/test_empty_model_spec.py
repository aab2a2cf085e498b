"""`-m ''` is an error naming the option in every command taking -m, and in the Python API.

It once ran the embedded default model silently: an unset shell variable in `-m "$MODEL"`
produced numbers for the wrong model.
"""

from pathlib import Path

import pytest

from rulebench import api
from rulebench.core.errors import ConfigError

from tests.command import assert_one_line_error, rulebench


@pytest.mark.parametrize(
    "args",
    [
        ("run", "smoke", "--store", "{store}"),
        ("run", "inferential", "--task", "kinship", "--limit", "2", "--store", "{store}"),
        ("play", "Encryption", "--seed", "3"),
        ("serve", "--store", "{store}", "--port", "8765"),
    ],
    ids=["run smoke", "run inferential", "play", "serve"],
)
def test_an_empty_model_spec_is_one_line_naming_the_option(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    result = rulebench(*(a.format(store=store) for a in args), "-m", "")
    assert_one_line_error(result, "-m/--model", "is empty")
    assert not (tmp_path / "s.sqlite").exists()  # refused before a run was stored


def test_the_python_api_refuses_an_empty_model(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is empty"):
        api.run("smoke", model="", store=tmp_path / "s.sqlite")
    assert not (tmp_path / "s.sqlite").exists()
