"""Old config field names are read under the new ones, with one warning."""

import pytest

from rulebench.core.renamed import rename_fields


def test_old_field_moves_to_new_name_with_a_warning() -> None:
    with pytest.warns(FutureWarning, match="inferential field 'n' is now 'per_group'"):
        fields = rename_fields({"n": 5, "seed": 1}, {"n": "per_group"}, "inferential")
    assert fields == {"per_group": 5, "seed": 1}


def test_fields_without_old_names_pass_unchanged(recwarn: pytest.WarningsRecorder) -> None:
    data = {"per_group": 5}
    assert rename_fields(data, {"n": "per_group"}, "inferential") is data
    assert len(recwarn) == 0


def test_both_names_is_an_error() -> None:
    with pytest.raises(ValueError, match="give per_group only"):
        rename_fields({"n": 5, "per_group": 6}, {"n": "per_group"}, "inferential")
