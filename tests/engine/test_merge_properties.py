"""Properties of `runs merge`: however a run's items are split and the pieces merged, one run.

Random partitions of a run's items into shards (some shards empty), merged in random
orders, some more than once, some first into intermediate stores that are then merged (a
merge of merges), always give one completed run holding every item exactly once with the
content of the run made whole. The shard stores are cut from one real run, so the
partition is free, not the hash split `--shard` makes.
"""

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.items import ItemResult
from rulebench.core.shards import Shard
from rulebench.engine.store.database import Store
from rulebench.engine.store.merge import merge_stores
from rulebench.engine.store.records import RunRecord
from rulebench.models.scripted import ScriptedModel

from tests.engine.merge_fixtures import ITEMS, content, counts, run_into, whole_run, write_shard

Whole = tuple[RunRecord, list[ItemResult], list[tuple[object, ...]]]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Whole:
    """One run made whole, by a model that thinks (so the thinking is in what is compared)."""
    path = tmp_path_factory.mktemp("whole") / "whole.sqlite"
    run_into(path, None, model=ScriptedModel("echo", thinking="let me see"))
    run, results = whole_run(path)
    return run, results, content(path, run.id)


@st.composite
def plans(draw: st.DrawFn) -> tuple[int, list[int], list[list[int]], list[int], bool]:
    """A shard count, each item's shard, intermediate merges, the final order, one call."""
    count = draw(st.integers(min_value=1, max_value=5))
    shard_of = draw(st.lists(st.integers(1, count), min_size=ITEMS, max_size=ITEMS))
    some_shards = st.lists(st.integers(1, count), min_size=1, max_size=2 * count)
    middles = draw(st.lists(some_shards, max_size=2))
    # Sources 1..count are shards, count+1.. intermediates; each shard reaches the end.
    every = [*range(1, count + 1 + len(middles))]
    extra = draw(st.lists(st.sampled_from(every), max_size=count))
    final = draw(st.permutations([*every, *extra]))
    return count, shard_of, middles, final, draw(st.booleans())


@settings(max_examples=30, deadline=None)
@given(plan=plans())
def test_any_partition_merged_in_any_way_is_the_whole_run(
    whole: Whole, plan: tuple[int, list[int], list[list[int]], list[int], bool]
) -> None:
    run, results, expected = whole
    count, shard_of, middles, final, in_one_call = plan
    with tempfile.TemporaryDirectory() as folder:
        stores = [Path(folder) / f"shard{index}.sqlite" for index in range(1, count + 1)]
        for index, path in enumerate(stores, 1):
            part = [r for r, s in zip(results, shard_of, strict=True) if s == index]
            write_shard(path, run, part, Shard(index=index, count=count), ITEMS)
        for number, picks in enumerate(middles):
            stores.append(Path(folder) / f"middle{number}.sqlite")
            merge_stores([stores[pick - 1] for pick in picks], stores[-1])
        target = Path(folder) / "merged.sqlite"
        sources = [stores[pick - 1] for pick in final]
        if in_one_call:
            merge_stores(sources, target)
        else:
            for source in sources:
                merge_stores([source], target)
        with Store(target, readonly=True) as store:
            [merged] = store.list_runs()
        assert merged.status == "completed"
        assert merged.config == run.config
        assert content(target, merged.id) == expected  # every item once, the same content
        before = counts(target)
        again = merge_stores(stores, target)
        assert (again.runs_added, again.results_added, again.results_replaced) == (0, 0, 0)
        assert counts(target) == before
