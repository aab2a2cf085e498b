"""SALAD is not in the public release: a missing folder says so, and where the files go."""

import shutil
from pathlib import Path

import pytest

from rulebench.core.errors import DataError
from rulebench.inferential.official import load_official

FIXTURES = Path(__file__).parent / "fixtures" / "official"


@pytest.mark.parametrize("dataset", ["salad", "salad-cf"])
def test_a_missing_salad_folder_says_where_to_put_which_files(tmp_path: Path, dataset: str) -> None:
    shutil.copytree(FIXTURES / "clutrr", tmp_path / "clutrr")
    with pytest.raises(DataError) as info:
        load_official(tmp_path, dataset)
    message = str(info.value)
    assert message.startswith(f"{tmp_path / dataset}: no such folder.")
    assert f"{dataset} is not in the public RuleBench release" in message
    assert f"put it in {tmp_path / dataset}/ as test_data.json" in message
    assert "test_rule.json" in message and '"rule" a bare int' in message


def test_a_missing_data_root_gets_the_general_hint_not_the_salad_one(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"no such folder; pass the release's data folder"):
        load_official(tmp_path / "nowhere", "salad")
