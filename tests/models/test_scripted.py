import json
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError, ModelError, TransientModelError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.scripted import ScriptedModel, ScriptedRule

CONFIG = GenerateConfig(max_tokens=50)


def user(text: str) -> list[Message]:
    return [Message(role="user", content=text)]


async def test_echo_fixed_and_max_tokens() -> None:
    assert (await ScriptedModel("echo").generate(user("a b c"), CONFIG)).text == "a b c"
    short = await ScriptedModel("echo").generate(user("a b c"), GenerateConfig(max_tokens=2))
    assert (
        short.text == "a b"
        and short.finish_reason == "length"
        and short.usage.completion_tokens == 2
    )
    assert (await ScriptedModel("fixed", reply="no").generate(user("x"), CONFIG)).text == "no"


async def test_rules_reply_or_fail_in_order(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_text(
        json.dumps([{"contains": "secret", "reply": "never"}, {"contains": "s", "reply": "s!"}])
    )
    model = ScriptedModel.create(
        "rules", BackendOptions(args={"rules": str(path), "reply": "default"})
    )
    assert (await model.generate(user("the secret"), CONFIG)).text == "never"
    assert (await model.generate(user("yes"), CONFIG)).text == "s!"
    assert (await model.generate(user("no"), CONFIG)).text == "default"
    failing = ScriptedModel(
        "rules", rules=[ScriptedRule(contains="x", error="busy", transient=False)]
    )
    with pytest.raises(ModelError) as error:
        await failing.generate(user("x"), CONFIG)
    assert not isinstance(error.value, TransientModelError)


def test_bad_scripted_specs_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown scripted model 'parrot'"):
        ScriptedModel.create("parrot", BackendOptions())
    with pytest.raises(ConfigError, match="needs -M file="):
        ScriptedModel.create("replay", BackendOptions())
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"messages": []}\nnot json\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl: line 2"):
        ScriptedModel.create("replay", BackendOptions(args={"file": str(bad)}))
    with pytest.raises(ConfigError, match="cannot read"):
        ScriptedModel.create("rules", BackendOptions(args={"rules": str(tmp_path / "none.json")}))


async def test_replay_answers_recorded_conversations_only(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    row = {
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    }
    path.write_text(json.dumps(row) + "\n")
    model = ScriptedModel.create("replay", BackendOptions(args={"file": str(path)}))
    assert (await model.generate(user("hi"), CONFIG)).text == "hello"
    with pytest.raises(ModelError, match="no reply"):
        await model.generate(user("other"), CONFIG)


def test_the_script_is_part_of_the_identity_so_the_cache_never_mixes_scripts() -> None:
    # Regression: two fixed models with different replies once shared an identity and a cache.
    assert (
        ScriptedModel("fixed", reply="yes").info.identity
        != ScriptedModel("fixed", reply="no").info.identity
    )
    assert (
        ScriptedModel("fixed", reply="yes").info.identity
        == ScriptedModel("fixed", reply="yes").info.identity
    )


@pytest.mark.parametrize("delay", ["inf", "nan", "-1", "3601"])
def test_non_finite_or_absurd_delay_is_a_config_error(delay: str) -> None:
    with pytest.raises(ConfigError, match="-M delay_s"):
        ScriptedModel.create("echo", BackendOptions(args={"delay_s": delay}))


def test_script_files_are_parsed_strictly(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text('[{"contains": "x", "reply": "y"}, NaN]')
    with pytest.raises(ConfigError, match=r"rules\.json: NaN at column 35 is not a JSON number"):
        ScriptedModel.create("rules", BackendOptions(args={"rules": str(rules)}))
    rules.write_text('{"contains": "x"}')
    with pytest.raises(ConfigError, match="not a list of scripted rules"):
        ScriptedModel.create("rules", BackendOptions(args={"rules": str(rules)}))
    rules.write_bytes(b"\xff[]")
    with pytest.raises(ConfigError, match="not UTF-8"):
        ScriptedModel.create("rules", BackendOptions(args={"rules": str(rules)}))
    replay = tmp_path / "run.jsonl"
    replay.write_text('{"messages": []}\n[1]\n')
    with pytest.raises(ConfigError, match=r"run\.jsonl: line 2: not an exported result"):
        ScriptedModel.create("replay", BackendOptions(args={"file": str(replay)}))


async def test_a_thinking_model_answers_apart_from_its_thinking() -> None:
    args = {"reply": "(B)", "thinking": "maybe (A)"}
    model = ScriptedModel.create("fixed", BackendOptions(args=args))
    done = await model.generate(user("x"), CONFIG)
    assert (done.text, done.reasoning, done.is_reasoning_unfinished) == ("(B)", "maybe (A)", False)
    cut = await model.generate(user("x"), GenerateConfig(max_tokens=1))  # "<think>maybe"
    assert (cut.text, cut.reasoning, cut.is_reasoning_unfinished) == ("", "maybe", True)
    assert model.info.identity != ScriptedModel("fixed", reply="(B)").info.identity
