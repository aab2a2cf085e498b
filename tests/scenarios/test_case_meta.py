"""Scenario items carry typed metadata that the analyses read back (and that names a bad item)."""

import pytest

from rulebench.core.errors import StoreError
from rulebench.scenarios.item_meta import CaseMeta
from rulebench.scenarios.task import ScenarioTask


def test_every_item_carries_readable_case_metadata() -> None:
    items = ScenarioTask(suites=["redteam"], per_group=1, repeats=2).items()
    metas = [CaseMeta.read(item.metadata, item.id) for item in items]
    assert {meta.repeat for meta in metas} == {0, 1}
    for meta in metas:
        assert meta.bucket in ("harmless", "helpful") and meta.suite == "redteam"
        assert meta.group == f"redteam {meta.bucket}" and meta.params is not None
        assert meta.behavior.startswith(meta.scenario)


def test_an_unreadable_stored_record_names_the_item_and_field() -> None:
    item = ScenarioTask(per_group=1).items()[0]
    broken = {**item.metadata, "version": "v2"}
    with pytest.raises(StoreError, match=rf"item {item.id}: metadata field 'version'"):
        CaseMeta.read(broken, item.id)


def test_records_stored_before_categories_fall_back_to_the_strategy() -> None:
    item = ScenarioTask(per_group=1).items()[0]
    older = {k: v for k, v in item.metadata.items() if k != "category"}
    assert CaseMeta.read(older).category is None
