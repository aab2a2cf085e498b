"""OpenAI's reasoning models get the parameters they take, and every change is said.

The mock server's o-series mode refuses `max_tokens` and a temperature other than 1 with
OpenAI's own wording, as o1, o3, o4-mini and gpt-5 do; the backend adapts and says so.
"""

import logging
from typing import Any

import pytest

from rulebench.core.errors import ConfigError, ModelError
from rulebench.core.messages import Completion, GenerateConfig, Message, ReasoningOptions
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIModel
from rulebench.models.openai.reasoning_params import (
    ParamsRefused,
    RequestParams,
    read_refusal,
)
from rulebench.testing.mock_replies import ThinkingStyle
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

O_SERIES = MockServerConfig(reasoning_api=True, thinking="hidden")
# The mock counts words split on spaces: 6 in all, of which the 5 between the tags are thinking.
THINKING_REPLY = "<think>a b c d e</think> Paris"
ASK = [Message(role="user", content="Capital of France?")]
AT_DEFAULT_TEMPERATURE = GenerateConfig(temperature=1.0)


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MOCK_API_KEY", "MOCK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def _think(body: dict[str, Any]) -> str:
    return THINKING_REPLY


def _compatible(server: MockOpenAIServer, **args: str) -> OpenAIModel:
    options = BackendOptions(base_url=server.url, args=args)
    return OpenAIModel.create_compatible("mock/reasoner", options)


async def _ask(model: OpenAIModel, config: GenerateConfig, times: int = 1) -> list[Completion]:
    try:
        return [await model.generate(ASK, config) for _ in range(times)]
    finally:
        await model.aclose()


def _sent(server: MockOpenAIServer) -> list[set[str]]:
    """The parameter names of each request the server got, in order."""
    return [set(request["params"]) for request in server.requests]


async def test_a_refused_max_tokens_is_resent_as_max_completion_tokens_and_remembered() -> None:
    async with MockOpenAIServer(O_SERIES, reply_fn=_think) as server:
        model = _compatible(server)
        first, second = await _ask(model, AT_DEFAULT_TEMPERATURE, times=2)
    sent = _sent(server)
    assert len(sent) == 3  # refused, resent, then the second reply at once
    assert "max_tokens" in sent[0] and "max_completion_tokens" not in sent[0]
    assert all("max_completion_tokens" in s and "max_tokens" not in s for s in sent[1:])
    assert server.requests[1]["params"]["max_completion_tokens"] == 256
    assert first.text == second.text == "Paris"
    assert any("refused max_tokens" in w for w in first.warnings)
    assert [n for n in model.run_notes if "max_completion_tokens" in n]


async def test_a_refused_temperature_is_left_out_and_said_on_every_reply(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    async with MockOpenAIServer(O_SERIES, reply_fn=_think) as server:
        model = _compatible(server)
        replies = await _ask(model, GenerateConfig(temperature=0.0), times=2)
    sent = _sent(server)
    # max_tokens refused, then temperature 0 refused, then answered; the next at once.
    assert len(sent) == 4
    assert "temperature" in sent[1] and "temperature" not in sent[2]
    assert "temperature" not in sent[3] and "max_tokens" not in sent[3]
    for reply in replies:
        assert reply.text == "Paris"
        assert [w for w in reply.warnings if w.startswith("temperature 0 was not sent")]
    logged = [r for r in caplog.records if "temperature" in r.getMessage()]
    assert len(logged) == 1 and logged[0].levelno == logging.WARNING
    assert [n for n in model.run_notes if "refuses temperature 0" in n]


async def test_the_default_temperature_is_sent_and_changes_nothing() -> None:
    async with MockOpenAIServer(O_SERIES, reply_fn=_think) as server:
        model = OpenAIModel.create_openai("o3", BackendOptions(base_url=server.url))
        [reply] = await _ask(model, AT_DEFAULT_TEMPERATURE)
    assert len(server.requests) == 1
    assert server.requests[0]["params"]["temperature"] == 1.0
    assert reply.warnings == ()


@pytest.mark.parametrize("name", ["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5.1"])
async def test_known_reasoning_models_send_max_completion_tokens_from_the_first_request(
    name: str,
) -> None:
    async with MockOpenAIServer(O_SERIES, reply_fn=_think) as server:
        model = OpenAIModel.create_openai(name, BackendOptions(base_url=server.url))
        [reply] = await _ask(model, AT_DEFAULT_TEMPERATURE)
    assert _sent(server) == [{"model", "max_completion_tokens", "temperature", "top_p", "seed"}]
    assert reply.text == "Paris"


@pytest.mark.parametrize("name", ["gpt-4o-mini", "omni-moderation-latest", "gpt-4.1"])
async def test_other_openai_models_keep_max_tokens(name: str) -> None:
    async with MockOpenAIServer() as server:
        model = OpenAIModel.create_openai(name, BackendOptions(base_url=server.url))
        await _ask(model, GenerateConfig())
    assert "max_tokens" in _sent(server)[0]
    assert model.run_notes == ()


async def test_reasoning_tokens_are_recorded_as_part_of_the_completion_tokens() -> None:
    async with MockOpenAIServer(O_SERIES, reply_fn=_think) as server:
        [reply] = await _ask(OpenAIModel.create_openai("o3", _url(server)), AT_DEFAULT_TEMPERATURE)
    assert (reply.text, reply.reasoning) == ("Paris", "")
    assert reply.usage.reasoning_tokens == 5
    assert reply.usage.completion_tokens == 6


async def test_hidden_thinking_cut_by_the_reply_limit_is_unfinished() -> None:
    async with MockOpenAIServer(O_SERIES, reply_fn=_think) as server:
        model = OpenAIModel.create_openai("o3", _url(server))
        [reply] = await _ask(model, GenerateConfig(temperature=1.0, max_tokens=2))
    assert server.requests[0]["params"]["max_completion_tokens"] == 2
    assert (reply.finish_reason, reply.text) == ("length", "")
    assert reply.is_reasoning_unfinished


async def test_a_reply_cut_after_its_answer_began_is_not_unfinished_thinking() -> None:
    async with MockOpenAIServer(O_SERIES, reply_fn=lambda body: "<think>a</think> b c d") as server:
        model = OpenAIModel.create_openai("o3", _url(server))
        [reply] = await _ask(model, GenerateConfig(temperature=1.0, max_tokens=3))
    assert (reply.finish_reason, reply.text) == ("length", "b c")
    assert not reply.is_reasoning_unfinished


def _url(server: MockOpenAIServer) -> BackendOptions:
    return BackendOptions(base_url=server.url)


# --- what cannot be adapted to ----------------------------------------------------------------


def test_openai_wordings_are_read_and_other_refusals_are_not() -> None:
    limit = (
        "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead."
    )
    value = (
        "Unsupported value: 'temperature' does not support 0 with this model. "
        "Only the default (1) value is supported."
    )
    assert read_refusal(limit) == ("max_tokens", None)
    assert read_refusal(value) == ("temperature", "1")
    assert read_refusal("Unsupported parameter: 'top_p' is not supported with this model.") == (
        "top_p",
        None,
    )
    # A stop sequence changes what a reply means: never dropped.
    assert read_refusal("Unsupported parameter: 'stop' is not supported with this model.") is None
    assert read_refusal("Invalid value for 'temperature': must be at most 2.") is None


def test_a_refusal_of_a_parameter_already_left_out_is_an_error() -> None:
    params = RequestParams("openai-api/mock/x", False, False)
    message = "Unsupported value: 'temperature' does not support 0 with this model."
    refused = ParamsRefused(f"openai-api/mock/x: 400 Bad Request: {message}", message)
    assert params.learn(refused, {"temperature": 0.0}) is None
    sent, _ = params.apply({"temperature": 0.0, "max_tokens": 5})
    with pytest.raises(ModelError, match="400 Bad Request"):
        params.learn(refused, sent)


async def test_a_plain_400_is_not_resent() -> None:
    async with MockOpenAIServer(O_SERIES) as server:
        model = OpenAIModel.create_openai("o3", _url(server))
        with pytest.raises(ModelError, match="400"):
            await model.generate(
                [Message(role="user", content="[[fault:400]] hi")], AT_DEFAULT_TEMPERATURE
            )
        await model.aclose()
    assert len(server.requests) == 1


# --- the thinking switch and OpenAI's own API -------------------------------------------------

THINKING_ON = GenerateConfig(reasoning=ReasoningOptions(thinking=True))


def test_the_thinking_switch_is_refused_for_openais_own_api(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unused")
    model = OpenAIModel.create_openai("o3", BackendOptions())
    with pytest.raises(ConfigError, match="--reasoning-effort") as refused:
        model.check_generate_config(THINKING_ON)
    assert "\n" not in str(refused.value)
    model.check_generate_config(GenerateConfig(reasoning=ReasoningOptions(effort="low")))


async def test_the_thinking_switch_still_reaches_other_servers() -> None:
    async with MockOpenAIServer() as server:
        model = OpenAIModel.create_openai("some-model", _url(server))
        await _ask(model, THINKING_ON)
    assert server.requests[0]["params"]["chat_template_kwargs"] == {"enable_thinking": True}


# --- bad input: huge reasoning, lone surrogates, both kinds of thinking ------------------------


async def _served(style: ThinkingStyle, text: str, **args: str) -> Completion:
    config = MockServerConfig(thinking=style)
    async with MockOpenAIServer(config, reply_fn=lambda body: text) as server:
        [reply] = await _ask(_compatible(server, **args), GenerateConfig(max_tokens=100_000))
    return reply


async def test_huge_reasoning_is_cut_at_the_reply_cap_with_a_warning() -> None:
    reply = await _served(
        "reasoning_content", "<think>" + "x" * 5000 + "</think> ok", max_reply_chars="1000"
    )
    assert reply.text == "ok"
    assert reply.reasoning == "x" * 1000
    assert "reasoning cut at 1000 characters (max_reply_chars)" in reply.warnings


async def test_huge_thinking_in_tags_is_cut_with_the_reply_never_silently() -> None:
    reply = await _served("tags", "<think>" + "y" * 5000 + "</think> ok", max_reply_chars="1000")
    # The cap cut the content inside its thinking: no answer, the thinking kept and flagged.
    assert reply.text == "" and reply.reasoning == "y" * 993
    assert "reply cut at 1000 characters (max_reply_chars)" in reply.warnings


async def test_a_lone_surrogate_in_reasoning_content_is_repaired_with_a_warning() -> None:
    reply = await _served("reasoning_content", "<think>half \ud83d</think> ok")
    assert reply.text == "ok"
    assert reply.reasoning == "half \ufffd"
    assert [w for w in reply.warnings if w.startswith("reasoning held 1 lone")]


async def test_reasoning_content_and_think_tags_in_one_reply_are_both_kept() -> None:
    # The server puts the first block in reasoning_content and leaves the second in content.
    reply = await _served("reasoning_content", "<think>one</think> <think>two</think> ok")
    assert reply.text == "ok"
    assert reply.reasoning == "one\n\ntwo"
    assert "the reply had both API reasoning and think tags; both were kept" in reply.warnings
