"""The stored summary (runs show, export) counts samples: repeats are averaged first."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.engine.store.database import Store
from rulebench.engine.summary import Tally, summarize

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


result_shapes = st.tuples(
    st.sampled_from([None, 0.0, 0.25, 0.5, 1.0]),  # score: sums of these are exact in any order
    st.sampled_from([None, False, True]),  # verdict
    st.booleans(),  # an error instead of an outcome
    st.sampled_from([None, "a", "b"]),  # the group field, absent for None
    st.integers(0, 50),  # prompt tokens
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(shapes=st.lists(result_shapes, max_size=30), group_by=st.sampled_from([None, "field"]))
def test_a_run_without_repeats_sums_in_one_pass_what_the_per_sample_form_sums(
    tmp_path: Path, shapes: list[tuple[float | None, bool | None, bool, str | None, int]],
    group_by: str | None,
) -> None:  # fmt: skip
    """Without repeats each item is its own sample, and the store's one-pass sums say so."""
    store = tmp_path / f"s{len(list(tmp_path.iterdir()))}.sqlite"
    with Store(store) as db:
        run = db.create_run("t", "m", {})
        writer = db.writer()
        for index, (score, passed, failed, group, tokens) in enumerate(shapes):
            metadata: dict[str, JsonValue] = {"repeat": 0}
            if group is not None:
                metadata["field"] = group
            writer.put_result(
                run.id,
                ItemResult(
                    item_id=f"i{index}",
                    messages=(Message(role="user", content="q"),),
                    outcome=None if failed else Outcome(score=score, passed=passed),
                    error="boom" if failed else None,
                    usage=Usage(prompt_tokens=tokens, completion_tokens=1),
                    metadata=metadata,
                ),
            )
        writer.close()
        tallies = db.tally_results(run.id, group_by)
    assert tallies == expected_tallies(shapes, group_by)


def expected_tallies(
    shapes: list[tuple[float | None, bool | None, bool, str | None, int]], group_by: str | None
) -> list[Tally]:
    """The sums worked out item by item: each item its own sample."""
    groups: dict[str, list[tuple[float | None, bool | None, bool, str | None, int]]] = {}
    for shape in shapes:
        groups.setdefault("all" if group_by is None else shape[3] or "-", []).append(shape)
    tallies = []
    for name, members in sorted(groups.items()):
        scores = [score for score, _, failed, _, _ in members if not failed and score is not None]
        verdicts = [v for _, v, failed, _, _ in members if not failed and v is not None]
        tallies.append(
            Tally(
                group=name,
                items=len(members),
                errors=sum(failed for _, _, failed, _, _ in members),
                scored=len(scores),
                score_sum=sum(scores),
                judged=len(verdicts),
                passed=sum(verdicts),
                excluded=sum(
                    not failed and score is None and verdict is None
                    for score, verdict, failed, _, _ in members
                ),
                prompt_tokens=sum(tokens for *_, tokens in members),
                completion_tokens=len(members),
                latency_s=0.0,
                cache_hits=0,
                cached_prompt_tokens=0,
                cached_completion_tokens=0,
                scoring_tokens=0,
                samples_scored=len(scores),
                sample_score_sum=sum(scores),
                samples_judged=len(verdicts),
                sample_pass_sum=sum(verdicts),
            )
        )
    return tallies
