"""The reasoning options: set once, sent as each API takes them, keying the cache and stored."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message, ReasoningOptions, ReasoningTags
from rulebench.engine.store.cache import make_cache_key
from rulebench.engine.store.database import Store
from rulebench.models.base import ModelInfo
from rulebench.models.openai.request import CHAT

runner = CliRunner()
INFO = ModelInfo(provider="openai-api", name="m", identity="m@url")
ASKED = [Message(role="user", content="Which?")]


def test_default_options_leave_every_earlier_cache_key_as_it_was() -> None:
    # The key of a config without the options, written out as it was before they existed.
    before = GenerateConfig().model_dump(mode="json")
    del before["reasoning"]
    assert GenerateConfig().cache_parts() == before
    key = make_cache_key(INFO, ASKED, GenerateConfig())
    assert '"reasoning"' not in key.parts_json


@pytest.mark.parametrize(
    "options",
    [
        ReasoningOptions(thinking=True),
        ReasoningOptions(thinking=False),
        ReasoningOptions(effort="low"),
        ReasoningOptions(tags=ReasoningTags(start="[THINK]", end="[/THINK]")),
    ],
)
def test_each_option_keys_the_cache_apart(options: ReasoningOptions) -> None:
    plain = make_cache_key(INFO, ASKED, GenerateConfig())
    assert make_cache_key(INFO, ASKED, GenerateConfig(reasoning=options)).key != plain.key


def test_the_chat_body_carries_the_switch_and_effort_only_when_set() -> None:
    plain = CHAT.body("m", ASKED, GenerateConfig())
    assert "chat_template_kwargs" not in plain and "reasoning_effort" not in plain
    config = GenerateConfig(reasoning=ReasoningOptions(thinking=False, effort="high"))
    body = CHAT.body("m", ASKED, config)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["reasoning_effort"] == "high"


def test_an_earlier_reply_goes_back_without_its_thinking() -> None:
    said = Message(role="assistant", content="No.", reasoning="the key is 1234")
    body = CHAT.body("m", [*ASKED, said, *ASKED], GenerateConfig())
    assert body["messages"][1] == {"role": "assistant", "content": "No."}
    assert "1234" not in json.dumps(body)
    assert "reasoning" not in said.model_dump()  # nor in case ids and written cases


def test_the_flags_reach_the_stored_run(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    flags = ["--thinking", "off", "--reasoning-effort", "low", "--reasoning-tags", "[T] [/T]"]
    args = ["run", "smoke", "-m", "scripted/echo", "--store", str(store), "--json", *flags]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["run"]["id"]
    with Store(store, readonly=True) as db:
        stored = db.get_run(run_id).config["generate"]
    assert isinstance(stored, dict)
    assert stored["reasoning"] == {
        "thinking": False,
        "effort": "low",
        "tags": {"start": "[T]", "end": "[/T]"},
    }


@pytest.mark.parametrize(
    "flags",
    [
        ["--reasoning-effort", "extreme"],
        ["--reasoning-tags", "<think>"],
        ["--reasoning-tags", "<t> <t>"],
    ],
)
def test_a_bad_value_is_one_line_naming_the_flag(tmp_path: Path, flags: list[str]) -> None:
    store = tmp_path / "s.sqlite"
    args = ["run", "smoke", "-m", "scripted/echo", "--store", str(store), *flags]
    result = runner.invoke(app, args)
    # The entry point prints a ConfigError as one red line (tests/cli/test_cli.py).
    assert isinstance(result.exception, ConfigError)
    message = str(result.exception)
    assert message.startswith(f"{flags[0]} {flags[1]!r}") and "\n" not in message
    assert not store.exists()


def test_thinking_takes_only_on_or_off(tmp_path: Path) -> None:
    args = ["run", "smoke", "-m", "scripted/echo", "--store", str(tmp_path / "s.sqlite")]
    result = runner.invoke(app, [*args, "--thinking", "maybe"])
    assert result.exit_code == 2 and "--thinking" in result.output


def test_the_run_line_names_the_options_set_and_only_those(tmp_path: Path) -> None:
    args = ["run", "smoke", "-m", "scripted/echo", "--store", str(tmp_path / "s.sqlite")]
    plain = runner.invoke(app, args)
    assert plain.exit_code == 0, plain.output
    assert "thinking=" not in plain.stderr and "reasoning" not in plain.stderr
    flags = ["--thinking", "on", "--reasoning-effort", "high", "--reasoning-tags", "[T] [/T]"]
    given = runner.invoke(app, [*args, *flags])
    assert given.exit_code == 0, given.output
    [line] = [line for line in given.stderr.splitlines() if line.startswith("smoke on")]
    assert "thinking=on reasoning_effort=high reasoning_tags='[T] [/T]'" in line


def test_the_python_api_takes_the_same_options(tmp_path: Path) -> None:
    import rulebench

    store = tmp_path / "s.sqlite"
    report = rulebench.run(
        "smoke", "scripted/echo", store=store, reasoning={"thinking": True, "effort": "minimal"}
    )
    assert report.run.config["generate"] == json.loads(
        GenerateConfig(
            max_tokens=48, reasoning=ReasoningOptions(thinking=True, effort="minimal")
        ).model_dump_json()
    )
    with pytest.raises(ConfigError, match="effort"):
        rulebench.run("smoke", "scripted/echo", store=store, reasoning={"effort": "max"})
