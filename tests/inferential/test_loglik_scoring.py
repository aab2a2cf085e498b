"""Log-likelihood scoring: refused without candidates, both picks stored, labelled per cell."""

from collections.abc import Sequence
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.items import Item
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.core.rules import Sample
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.task import Session
from rulebench.inferential.analysis import to_records
from rulebench.inferential.solving import pick_by_loglik
from rulebench.inferential.task import InferentialTask
from rulebench.models.base import ChoiceScores, ModelInfo
from rulebench.report.build import inferential_report

# Summed log-likelihood per written choice: "a" is likelier in sum, "bbbbbbbb" per character.
SCORES = {"a": -3.0, "bbbbbbbb": -4.0}


class TableModel:
    """Scores each choice from a table (unknown choices: minus their length)."""

    info = ModelInfo(provider="test", name="table", identity="test/table")

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        return Completion(text="Answer: 4")

    async def score_choices(
        self, messages: Sequence[Message], choices: Sequence[str]
    ) -> ChoiceScores:
        return ChoiceScores([SCORES.get(c, -float(len(c))) for c in choices], len(choices))

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize("scoring", ["loglik", "loglik-norm"])
def test_log_likelihood_is_refused_for_a_task_without_candidates(scoring: str) -> None:
    with pytest.raises(ConfigError, match="task 'stringgame' has open answers"):
        InferentialTask(tasks=["kinship", "stringgame"], per_group=2, scoring=scoring)
    InferentialTask(tasks=["kinship"], per_group=2, scoring=scoring)  # candidates: accepted


@pytest.mark.parametrize(("scoring", "answer"), [("loglik", "a"), ("loglik-norm", "bbbbbbbb")])
async def test_both_picks_are_stored_and_the_option_decides(scoring: str, answer: str) -> None:
    item = Item(id="i", messages=(Message(role="user", content="q"),), choices=("a", "bbbbbbbb"))
    sample = Sample(id="s", task="kinship", question="q", gold="bbbbbbbb", golden_rule="r")
    session = Session(TableModel(), GenerateConfig(), None, item.id)
    outcome = await pick_by_loglik(session, item, sample, lambda choice: choice, scoring)
    assert outcome.answer == answer
    assert outcome.score == float(answer == "bbbbbbbb")
    assert outcome.details["scoring"] == scoring
    assert outcome.details["loglik_sum"] == {"answer": "a", "correct": False}
    assert outcome.details["loglik_norm"] == {"answer": "bbbbbbbb", "correct": True}
    assert outcome.details["loglik"] == SCORES


async def test_reports_label_scoring_per_cell_not_per_run(tmp_path: Path) -> None:
    task = InferentialTask(tasks=["kinship"], per_group=3, scoring="loglik-norm")
    spec = RunSpec(task="inferential", model="test/table", task_config=task.config())
    with Store(tmp_path / "s.sqlite") as store:
        report = await Runner(store).run(task, TableModel(), spec)
        records = to_records(list(store.iter_results(report.run.id)), "robust")
        built = inferential_report(store, [report.run.id], folder=tmp_path / "report")
    assert {r.scoring for r in records} == {"loglik-norm"}
    assert "[log-likelihood scoring]" not in built.markdown
    assert "direct, 0-shot, log-likelihood per char" in built.markdown
