"""The prompt-echo baseline re-judges each stored prompt as if it were the reply."""

from pathlib import Path

import pytest
from pydantic import JsonValue

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import GenerateConfig, Message
from rulebench.core.stats import wilson_interval
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.inferential.analysis import accuracy_by, cell_of, to_records
from rulebench.inferential.echo_baseline import (
    EchoCell,
    echo_cells,
    echo_flags,
    echo_records,
    index_run,
    prompt_text,
)
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialTask
from rulebench.models.scripted import ScriptedModel

FIXTURES = Path(__file__).parent / "tasks" / "fixtures" / "official"


async def echo_run(
    tmp_path: Path, tasks: list[str]
) -> tuple[list[ItemResult], dict[str, JsonValue]]:
    """A run of the scripted echo model (it replies with the prompt, untruncated)."""
    grid = Grid(quantities=("golden", "few"), counterfactual=(False, True))
    task = InferentialTask(
        tasks=tasks, per_group=6, seed=3, data_root=str(FIXTURES), grid=grid.model_dump()
    )
    spec = RunSpec(
        task="inferential",
        model="scripted/echo",
        task_config=task.config(),
        generate=GenerateConfig(max_tokens=1_000_000),
    )
    with Store(tmp_path / "s.sqlite") as store:
        report = await Runner(store).run(task, ScriptedModel("echo"), spec)
        return list(store.iter_results(report.run.id)), task.config()


async def test_the_baseline_scores_exactly_what_an_echo_model_scores(tmp_path: Path) -> None:
    results, config = await echo_run(tmp_path, ["law", "law-cf", "kinship", "clutrr"])
    echoes = echo_cells(echo_records(results, index_run(config)))
    assert all(echo.complete for echo in echoes.values())
    for mode in ("paper", "robust"):
        model = accuracy_by(to_records(results, mode), cell_of)
        baseline = {cell: getattr(echo, mode) for cell, echo in echoes.items()}
        assert baseline == model, mode
    law_golden = next(c for c in echoes if c.task == "law" and c.quantity == "golden")
    # Paper-mode law scoring finds the gold among the candidate charges the prompt lists.
    assert echoes[law_golden].paper.value == 1.0
    assert echo_flags(echoes[law_golden]) == {"paper": "high"}


async def test_without_the_data_the_echo_is_judged_without_candidates(tmp_path: Path) -> None:
    results, config = await echo_run(tmp_path, ["kinship"])
    index = index_run({**config, "tasks": ["nosuchtask"]})
    assert index.problem is not None and "nosuchtask" in index.problem
    echoes = echo_cells(echo_records(results, index))
    assert echoes and not any(echo.complete for echo in echoes.values())


def test_prompt_is_the_user_turns_and_errors_and_loglik_picks_are_skipped() -> None:
    meta = {
        "task": "ulogic",
        "sample_id": "s",
        "quantity": "golden",
        "form": "nl",
        "cot": False,
        "counterfactual": False,
        "gold": "true",
    }
    messages = (
        Message(role="system", content="Answer: false."),
        Message(role="user", content="Rule: ... Answer: true."),
        Message(role="assistant", content="Answer: false."),
    )
    scored = Outcome(score=0.0, details={"scoring": "generate"})
    results = [
        ItemResult(item_id="a", messages=messages, outcome=scored, metadata=meta),
        ItemResult(item_id="b", messages=messages, error="HTTP 500", metadata=meta),
        ItemResult(
            item_id="c",
            messages=messages,
            outcome=Outcome(score=1.0, details={"scoring": "loglik"}),
            metadata=meta,
        ),
    ]
    assert prompt_text(results[0]) == "Rule: ... Answer: true."
    [echo] = echo_records(results, index_run({"tasks": ["nosuchtask"]}))
    assert echo.paper is True and echo.robust is True and not echo.has_sample


@pytest.mark.parametrize(
    ("right", "n", "chance", "flags"),
    [
        (96, 100, None, {"paper": "high", "robust": "high"}),
        (20, 100, 0.05, {"paper": "above chance", "robust": "above chance"}),
        (6, 100, 0.05, {}),  # at chance: the interval reaches below 5%
        (20, 100, None, {}),  # open answers: no chance level to compare with
    ],
)
def test_flags_mark_high_or_surely_above_chance(
    right: int, n: int, chance: float | None, flags: dict[str, str]
) -> None:
    found = wilson_interval(right, n)
    assert echo_flags(EchoCell(found, found, chance, True)) == flags
