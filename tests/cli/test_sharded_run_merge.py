"""A run split in 4 shards (4 processes at once, 4 stores) and merged equals the run made whole.

Real processes, real stores, the scripted model: the same spec run whole and run sharded then
merged gives the same item ids and outcomes, the same `report --json` figures (the run id
aside) and the same report file.
"""

import json
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store

from tests.cli.sharded_runs import RUN, assert_exits_cleanly, merge, report, results, start_shards
from tests.command import rulebench

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`


def test_four_shards_merged_equal_the_whole_run(tmp_path: Path) -> None:
    whole = tmp_path / "whole.sqlite"
    assert rulebench(*RUN, "--store", str(whole)).returncode == 0
    shards = [tmp_path / f"shard{index}.sqlite" for index in range(1, 5)]
    for process in start_shards(RUN, shards):
        assert_exits_cleanly(process)
    merged = tmp_path / "merged.sqlite"
    merge(shards, merged)
    whole_id, whole_results = results(whole)
    merged_id, merged_results = results(merged)
    assert merged_results == whole_results and len(whole_results) == 20
    with Store(merged, readonly=True) as db:
        assert db.get_run(merged_id).status == "completed"
    assert report(merged, merged_id, tmp_path / "m") == report(whole, whole_id, tmp_path / "w")
    again = merge(shards, merged, "--json")
    added = json.loads(again.stdout)
    assert (added["runs_added"], added["results_added"], added["cache_added"]) == (0, 0, 0)
