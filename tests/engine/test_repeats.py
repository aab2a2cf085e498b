"""Repeats are independent draws: a seed of their own and cache entries of their own."""

from collections.abc import Sequence

from pydantic import JsonValue

from rulebench.core.items import Item, ItemIds, Outcome
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.task import Session
from rulebench.models.base import ModelInfo


class SeedEcho:
    """Replies with the sampling seed it was given: what a sampling model's draw depends on."""

    info = ModelInfo(provider="scripted", name="seed", identity="seed-echo")

    def __init__(self) -> None:
        self.calls = 0

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        self.calls += 1
        return Completion(text=f"seed {config.seed}")

    async def aclose(self) -> None:
        pass


class RepeatedTask:
    name = "repeated"

    def __init__(self, repeats: int) -> None:
        self.repeats = repeats

    def config(self) -> dict[str, JsonValue]:
        return {"repeats": self.repeats}

    def items(self) -> list[Item]:
        ids = ItemIds()
        message = (Message(role="user", content="same question"),)
        return [Item(id=ids("q", r), messages=message, repeat=r) for r in range(self.repeats)]

    async def solve(self, item: Item, session: Session) -> Outcome:
        completion = await session.generate(item.messages)
        return Outcome(answer=completion.text)


async def test_each_repeat_samples_with_its_own_seed_and_misses_the_cache(store: Store) -> None:
    model = SeedEcho()
    spec = RunSpec(task="repeated", model="x", generate=GenerateConfig(temperature=0.8, seed=7))
    report = await Runner(store).run(RepeatedTask(4), model, spec)
    answers = [r.outcome.answer for r in store.iter_results(report.run.id) if r.outcome]
    assert model.calls == 4 and report.cache_hits_now == 0
    assert len(set(answers)) == 4 and "seed 7" in answers  # the first repeat keeps the seed
    again = SeedEcho()
    second = await Runner(store).run(RepeatedTask(4), again, spec)
    assert again.calls == 0 and second.cache_hits_now == 4  # each repeat found its own entry
