"""The stored summary (runs show, export) counts samples: repeats are averaged first."""

from pathlib import Path

from pydantic import JsonValue

import rulebench
from rulebench.engine.store import Store
from rulebench.engine.summary import summarize

SCENARIOS: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}


def test_scenario_repeats_keep_the_pass_rate_and_its_interval(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    runs = [
        rulebench.run(
            "scenarios", "scripted/echo", config={**SCENARIOS, "repeats": r}, store=store
        ).run.id
        for r in (1, 2)
    ]
    with Store(store, readonly=True) as db:
        once, twice = (summarize(db.tally_results(run), grouped=False)[-1] for run in runs)
        by_scenario = summarize(db.tally_results(runs[1], "scenario"), grouped=True)
    assert twice.items == 2 * once.items
    assert once.pass_rate is not None and 0 < once.pass_rate.value < 1
    assert twice.pass_rate == once.pass_rate
    assert sum(row.pass_rate.n for row in by_scenario[:-1] if row.pass_rate) == once.items
