"""A run whose concurrency was not given finds it from a served model's answers."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rulebench.engine.resume_spec import spec_to_resume
from rulebench.engine.run_lookup import find_run
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.store.shard_specs import keyed_spec
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIModel
from rulebench.models.scripted import ScriptedModel
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

from tests.conftest import EchoTask


def served(url: str) -> OpenAIModel:
    options = BackendOptions(base_url=url, args={"max_connections": "32", "max_retries": "6"})
    return OpenAIModel.create_compatible("mock/echo", options)


def adaptive(concurrency: int) -> RunSpec:
    return RunSpec(
        task="echo-test",
        model="openai-api/mock/echo",
        concurrency=concurrency,
        adaptive_concurrency=True,
        use_cache=False,
    )


@pytest.fixture
async def sixteen_slots() -> AsyncIterator[MockOpenAIServer]:
    config = MockServerConfig(latency_s=0.1, max_concurrent=16)
    async with MockOpenAIServer(config) as server:
        yield server


async def test_the_run_climbs_to_the_servers_slots_and_notes_it(
    store: Store, sixteen_slots: MockOpenAIServer
) -> None:
    model = served(sixteen_slots.url)
    report = await Runner(store).run(EchoTask(300), model, adaptive(4))
    await model.aclose()
    assert report.run.status == "completed"
    note = str(report.run.notes["concurrency"])
    assert note.startswith("adaptive: 4 at the start")
    highest = int(note.split("highest ")[1].split(",")[0])
    assert 16 <= highest <= 32  # up past the slots, never past max_connections
    assert sixteen_slots.max_in_flight == 16


async def test_429s_bring_the_limit_down_and_every_item_still_finishes(store: Store) -> None:
    config = MockServerConfig(latency_s=0.02, fault_rate=0.2, fault_kinds=("429r0",))
    async with MockOpenAIServer(config) as server:
        model = served(server.url)
        report = await Runner(store).run(EchoTask(120), model, adaptive(16))
        await model.aclose()
    assert report.run.status == "completed"
    note = str(report.run.notes["concurrency"])
    backoffs = int(note.split("changes, ")[1].split(" back-offs")[0])
    assert backoffs >= 1


async def test_a_given_concurrency_is_fixed_and_not_noted(
    store: Store, sixteen_slots: MockOpenAIServer
) -> None:
    model = served(sixteen_slots.url)
    fixed = adaptive(4).with_concurrency(4)
    report = await Runner(store).run(EchoTask(40), model, fixed)
    await model.aclose()
    assert "concurrency" not in report.run.notes
    assert sixteen_slots.max_in_flight == 4


async def test_a_backend_that_cannot_adapt_keeps_the_concurrency(store: Store) -> None:
    spec = adaptive(3).model_copy(update={"model": "scripted/echo"})
    report = await Runner(store).run(EchoTask(10), ScriptedModel("echo"), spec)
    assert report.run.status == "completed" and "concurrency" not in report.run.notes


def test_a_run_adapts_only_when_no_concurrency_is_given() -> None:
    model = "openai-api/mock/echo"
    default = make_spec("smoke", model, {}, RunSettings())
    given = make_spec("smoke", model, {}, RunSettings(concurrency=4))
    loadtest = make_spec("loadtest", model, {}, RunSettings())
    assert default.adaptive_concurrency and default.concurrency == 4
    assert not given.adaptive_concurrency and given.concurrency == 4
    assert not loadtest.adaptive_concurrency  # a load test measures the concurrency it names
    assert not default.with_concurrency(8).adaptive_concurrency


def test_a_concurrency_given_on_resume_fixes_it(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    spec = adaptive(4)
    with Store(path) as store:
        run = store.create_run(spec.task, spec.model, spec.model_dump(mode="json"))
    again, _ = spec_to_resume(path, run.id, {"concurrency": None})
    fixed, _ = spec_to_resume(path, run.id, {"concurrency": 12})
    assert again.adaptive_concurrency and again.concurrency == 4
    assert not fixed.adaptive_concurrency and fixed.concurrency == 12


def test_a_run_stored_before_adaptive_concurrency_is_the_same_run(store: Store) -> None:
    older = adaptive(4).model_dump(mode="json")
    del older["adaptive_concurrency"]  # as runs stored before the field existed
    run = store.create_run("echo-test", "openai-api/mock/echo", older)
    store.finish_run(run.id, "completed", {})
    assert find_run(store.list_runs(), adaptive(4)) is not None
    assert find_run(store.list_runs(), adaptive(4).with_concurrency(9)) is not None
    assert keyed_spec(older) == keyed_spec(adaptive(4).model_dump(mode="json"))
