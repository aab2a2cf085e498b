from rulebench.core.messages import GenerateConfig, Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.cache import DIFFERENCE_COLUMNS, describe_difference, make_cache_key
from rulebench.engine.store.database import Store
from rulebench.models.base import ModelInfo
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask

INFO = ModelInfo(provider="p", name="n", identity="p/n@abc")
MESSAGES = [Message(role="user", content="hi")]


def test_key_changes_with_every_part_that_determines_a_reply() -> None:
    base = make_cache_key(INFO, MESSAGES, GenerateConfig()).key
    variants = [
        make_cache_key(INFO.model_copy(update={"identity": "p/n@def"}), MESSAGES, GenerateConfig()),
        make_cache_key(INFO.model_copy(update={"provider": "q"}), MESSAGES, GenerateConfig()),
        make_cache_key(INFO, [Message(role="user", content="hi ")], GenerateConfig()),
        make_cache_key(INFO, [Message(role="system", content="hi")], GenerateConfig()),
        make_cache_key(INFO, MESSAGES, GenerateConfig(seed=1)),
        make_cache_key(INFO, MESSAGES, GenerateConfig(temperature=0.5)),
        make_cache_key(INFO, MESSAGES, GenerateConfig(stop=("\n",))),
        make_cache_key(INFO, MESSAGES, GenerateConfig(max_tokens=9)),
        make_cache_key(INFO, MESSAGES, GenerateConfig(top_p=0.9)),
    ]
    keys = {variant.key for variant in variants}
    assert len(keys) == len(variants) and base not in keys
    assert make_cache_key(INFO, MESSAGES, GenerateConfig()).key == base


def test_describe_difference_points_at_the_changed_message_and_setting() -> None:
    [messages] = describe_difference(
        "messages", [["user", "a"], ["user", "b"]], [["user", "a"], ["user", "c"]]
    )
    assert messages.part == "messages[1]"
    settings = describe_difference(
        "config", {"seed": 0, "max_tokens": 5}, {"seed": 1, "max_tokens": 5}
    )
    assert [(d.part, d.request, d.cached) for d in settings] == [("config.seed", "0", "1")]


async def test_explain_names_the_parts_that_made_a_run_miss(store: Store) -> None:
    spec = RunSpec(task="echo-test", model="scripted/echo")
    first = await Runner(store).run(EchoTask(3), ScriptedModel("echo"), spec)
    assert store.explain_cache_miss(first.run.id) is not None  # the first run missed everything
    changed = spec.model_copy(update={"generate": GenerateConfig(max_tokens=99, seed=4)})
    second = await Runner(store).run(EchoTask(3), ScriptedModel("echo"), changed)
    explanation = store.explain_cache_miss(second.run.id)
    assert explanation is not None and explanation.nearest_run_id == first.run.id
    assert {d.part for d in explanation.differences} == {"config.max_tokens", "config.seed"}
    third = await Runner(store).run(EchoTask(3), ScriptedModel("echo"), changed)
    assert store.explain_cache_miss(third.run.id) is None  # all hits


async def test_an_explanation_heads_with_the_nearest_run_and_rows_its_differences(
    store: Store,
) -> None:
    spec = RunSpec(task="echo-test", model="scripted/echo")
    first = await Runner(store).run(EchoTask(1), ScriptedModel("echo"), spec)
    alone = store.explain_cache_miss(first.run.id)
    assert alone is not None and alone.nearest_run_id is None
    assert alone.headline == f"Item {alone.item_id} missed: the cache held nothing to compare with."
    changed = spec.model_copy(update={"generate": GenerateConfig(max_tokens=7)})
    second = await Runner(store).run(EchoTask(1), ScriptedModel("echo"), changed)
    explanation = store.explain_cache_miss(second.run.id)
    assert explanation is not None
    assert explanation.headline == (
        f"Item {explanation.item_id}: the nearest cached entry is from run {first.run.id}"
    )
    default = str(GenerateConfig().max_tokens)
    assert explanation.rows() == [("config.max_tokens", "7", default)]
    assert len(DIFFERENCE_COLUMNS) == len(explanation.rows()[0])
