"""Repeats: each draws with its own seed, and the report shows the spread across them."""

from collections.abc import Sequence
from pathlib import Path

from rulebench.core.items import content_hash
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.inferential.analysis import Record, to_records
from rulebench.inferential.repeats import repeat_spread
from rulebench.inferential.task import InferentialTask
from rulebench.models.base import ModelInfo
from rulebench.report.inferential_baselines import repeats_section


def record(correct: bool, repeat: int) -> Record:
    return Record("kinship", "few", "nl", False, False, correct, None, 1, 3, repeat=repeat)


def test_the_spread_is_over_per_repeat_accuracies() -> None:
    records = [record(c, 0) for c in (True, True, False, False)]
    records += [record(c, 1) for c in (True, True, True, False)]
    records += [record(c, 2) for c in (True, False, False, False)]
    [spread] = repeat_spread(records).values()
    assert spread.accuracies == (0.5, 0.75, 0.25)
    assert spread.mean == 0.5 and abs(spread.std - 0.25) < 1e-12
    assert (spread.low, spread.high) == (0.25, 0.75)
    assert repeat_spread([record(True, 0), record(False, 0)]) == {}  # one repeat: no spread


class CoinModel:
    """Answers right or wrong by its sampling seed and the question: a sampled model."""

    info = ModelInfo(provider="test", name="coin", identity="test/coin")

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        prompt = messages[-1].content
        right = int(content_hash([config.seed, prompt]), 16) % 2 == 0
        return Completion(text=f"Answer: {self.answers[prompt] if right else 'nobody'}")

    async def aclose(self) -> None:
        pass


async def test_repeats_of_a_sampled_run_really_differ(tmp_path: Path) -> None:
    task = InferentialTask(tasks=["kinship"], per_group=30, repeats=3)
    answers = {item.messages[0].content: str(item.target) for item in task.items()}
    spec = RunSpec(
        task="inferential",
        model="test/coin",
        task_config=task.config(),
        generate=GenerateConfig(temperature=0.8, seed=3),
    )
    with Store(tmp_path / "s.sqlite") as store:
        report = await Runner(store).run(task, CoinModel(answers), spec)
        records = to_records(list(store.iter_results(report.run.id)), "robust")
    assert report.completed_now == 90 and report.cache_hits_now == 0
    [spread] = repeat_spread(records).values()
    assert len(set(spread.accuracies)) > 1 and spread.std > 0
    assert "accuracy % per repeat" in repeats_section([("coin", records)])
