import asyncio
from collections.abc import Sequence

import pytest

from rulebench.core.errors import DataError
from rulebench.core.items import Item, Outcome
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.task import Session
from rulebench.models.scripted import ScriptedModel, ScriptedRule

from tests.conftest import EchoTask


def spec(**overrides: object) -> RunSpec:
    return RunSpec(task="echo-test", model="scripted/echo", **overrides)


class RecordingProgress:
    def __init__(self) -> None:
        self.started: tuple[str, int | None, int] | None = None
        self.advanced: list[bool] = []
        self.finished = False

    def start(self, run_id: str, total: int | None, already_done: int) -> None:
        self.started = (run_id, total, already_done)

    def advance(self, failed: bool) -> None:
        self.advanced.append(failed)

    def finish(self) -> None:
        self.finished = True


async def test_every_item_gets_one_scored_result(store: Store, echo_task: EchoTask) -> None:
    progress = RecordingProgress()
    report = await Runner(store, progress).run(echo_task, ScriptedModel("echo"), spec())
    results = list(store.iter_results(report.run.id))
    assert sorted(r.item_id for r in results) == sorted(i.id for i in echo_task.items())
    assert all(r.outcome and r.outcome.score == 1.0 for r in results)
    assert report.run.status == "completed"
    assert progress.started == (report.run.id, 10, 0)
    assert progress.advanced == [False] * 10 and progress.finished
    first = next(r for r in results if r.metadata["index"] == 3)
    assert first.messages[-1] == Message(role="assistant", content="question 3")
    assert first.reply == "question 3" and first.calls == 1


async def test_concurrency_is_bounded(store: Store) -> None:
    in_flight = peak = 0

    class Probe(ScriptedModel):
        async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1
            return await super().generate(messages, config)

    await Runner(store).run(EchoTask(40), Probe("echo"), spec(concurrency=5))
    assert peak == 5


async def test_model_errors_are_recorded_as_errors_not_wrong_answers(store: Store) -> None:
    model = ScriptedModel(
        "rules", reply="x", rules=[ScriptedRule(contains="question 4", error="HTTP 500")]
    )
    report = await Runner(store).run(EchoTask(6), model, spec())
    results = {r.metadata["index"]: r for r in store.iter_results(report.run.id)}
    assert results[4].error == "HTTP 500" and results[4].outcome is None
    assert report.errors_now == 1
    assert store.count_results(report.run.id) == {"ok": 5, "error": 1}


async def test_a_bug_in_a_task_becomes_an_item_error(store: Store) -> None:
    class Broken(EchoTask):
        async def solve(self, item: Item, session: Session) -> Outcome:
            await session.generate(item.messages)
            raise ZeroDivisionError("oops")

    report = await Runner(store).run(Broken(3), ScriptedModel("echo"), spec())
    errors = [r.error for r in store.iter_results(report.run.id)]
    assert errors == ["internal error: ZeroDivisionError: oops"] * 3
    # The transcript up to the failure is kept.
    assert all(len(r.messages) == 2 for r in store.iter_results(report.run.id))


async def test_resume_runs_only_missing_and_failed_items(store: Store) -> None:
    failing = ScriptedModel(
        "rules", reply="x", rules=[ScriptedRule(contains="question 2", error="down")]
    )
    first = await Runner(store).run(EchoTask(5), failing, spec())
    healthy = ScriptedModel("echo")
    progress = RecordingProgress()
    second = await Runner(store, progress).run(EchoTask(5), healthy, spec(), resume_id=first.run.id)
    assert second.run.id == first.run.id
    assert [m[-1].content for m in healthy.calls] == ["question 2"]
    assert progress.started == (first.run.id, 5, 4)
    assert store.count_results(first.run.id) == {"ok": 5, "error": 0}


async def test_limit_applies_before_resume_skips(store: Store) -> None:
    model = ScriptedModel("echo")
    report = await Runner(store).run(EchoTask(10), model, spec(limit=3))
    assert len(list(store.iter_results(report.run.id))) == 3
    again = ScriptedModel("echo")
    await Runner(store).run(EchoTask(10), again, spec(limit=3), resume_id=report.run.id)
    assert again.calls == []


async def test_duplicate_item_ids_fail_the_run_with_a_data_error(store: Store) -> None:
    class Duplicated(EchoTask):
        def items(self) -> list[Item]:
            items = super().items()
            return [*items, items[0]]

    with pytest.raises(DataError, match="share the id"):
        await Runner(store).run(Duplicated(3), ScriptedModel("echo"), spec())
    assert store.list_runs()[0].status == "failed"


async def test_a_dead_model_stops_the_run_early_and_it_stays_resumable(store: Store) -> None:
    dead = ScriptedModel(
        "rules", rules=[ScriptedRule(contains="question", error="connection refused")]
    )
    with pytest.raises(Exception, match="errors in a row"):
        await Runner(store).run(
            EchoTask(100),
            dead,
            spec(max_consecutive_errors=10, concurrency=1, stop_after_same=1000),
        )
    run = store.list_runs()[0]
    assert run.status == "failed"
    assert store.count_results(run.id)["error"] == 10


async def test_cancellation_marks_the_run_interrupted_and_keeps_finished_results(
    store: Store,
) -> None:
    slow = ScriptedModel("echo", delay_s=0.05)
    task = asyncio.create_task(Runner(store).run(EchoTask(200), slow, spec(concurrency=2)))
    while len(slow.calls) < 6:  # cancel once some items are under way, however fast the machine
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    run = store.list_runs()[0]
    assert run.status == "interrupted"
    stored = store.count_results(run.id)["ok"]
    assert 0 < stored < 200
    resumed = ScriptedModel("echo")
    await Runner(store).run(EchoTask(200), resumed, spec(), resume_id=run.id)
    assert len(resumed.calls) == 200 - stored
    assert store.count_results(run.id) == {"ok": 200, "error": 0}


async def test_cache_hits_skip_the_model_and_are_counted(store: Store) -> None:
    first_model = ScriptedModel("echo")
    await Runner(store).run(EchoTask(4), first_model, spec())
    second_model = ScriptedModel("echo")
    report = await Runner(store).run(EchoTask(4), second_model, spec())
    assert second_model.calls == []
    results = list(store.iter_results(report.run.id))
    assert all(r.cache_hits == 1 and r.outcome and r.outcome.score == 1.0 for r in results)


async def test_no_cache_and_changed_parameters_miss(store: Store) -> None:
    await Runner(store).run(EchoTask(2), ScriptedModel("echo"), spec())
    uncached = ScriptedModel("echo")
    await Runner(store).run(EchoTask(2), uncached, spec(use_cache=False))
    assert len(uncached.calls) == 2
    changed = ScriptedModel("echo")
    await Runner(store).run(EchoTask(2), changed, spec(generate=GenerateConfig(max_tokens=7)))
    assert len(changed.calls) == 2


async def test_system_role_fallback_is_recorded(store: Store) -> None:
    class WithSystem(EchoTask):
        def items(self) -> list[Item]:
            return [
                i.model_copy(
                    update={"messages": (Message(role="system", content="S"), *i.messages)}
                )
                for i in super().items()
            ]

    model = ScriptedModel("echo", system_role=False)
    report = await Runner(store).run(WithSystem(3), model, spec())
    assert all(r.system_merged for r in store.iter_results(report.run.id))
    assert "merged" in str(report.run.notes["system_role_fallback"])
    assert model.calls[0][0] == Message(role="user", content="S\n\nquestion 0")
