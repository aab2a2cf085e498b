"""Old config field names are read under the new ones, with one warning."""

import logging

import pytest

from rulebench.core.renamed import rename_fields


def test_old_field_moves_to_new_name_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rulebench.deprecated"):
        fields = rename_fields({"n": 5, "seed": 1}, {"n": "per_group"}, "inferential")
    assert fields == {"per_group": 5, "seed": 1}
    assert "inferential field 'n' is now 'per_group'" in caplog.text


def test_fields_without_old_names_pass_unchanged(caplog: pytest.LogCaptureFixture) -> None:
    data = {"per_group": 5}
    assert rename_fields(data, {"n": "per_group"}, "inferential") is data
    assert caplog.text == ""


def test_both_names_is_an_error() -> None:
    with pytest.raises(ValueError, match="give per_group only"):
        rename_fields({"n": 5, "per_group": 6}, {"n": "per_group"}, "inferential")
