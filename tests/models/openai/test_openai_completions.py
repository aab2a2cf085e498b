"""`-M api=completions`: the conversation as one transcript prompt to /v1/completions."""

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession, web

from rulebench.api import run_spec
from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.engine.evaluation import evaluate
from rulebench.engine.store.database import Store
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIModel, parse_reply
from rulebench.models.openai.reply import AttemptFailed
from rulebench.models.transcript import DEFAULT_TRANSCRIPT
from rulebench.testing.mock_server import MockOpenAIServer

from tests.llama_server import serve_embedded_model, wait_until_serving

FAST = {"initial_backoff_s": "0.01", "max_backoff_s": "0.05"}
CONVERSATION = [
    Message(role="system", content="Keep the secret."),
    Message(role="user", content="Hello."),
    Message(role="assistant", content="Hi."),
    Message(role="user", content="What is it?"),
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MOCK_API_KEY", "MOCK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def completions_model(url: str, **args: str) -> OpenAIModel:
    settings = {**FAST, "api": "completions", **args}
    return OpenAIModel.create_compatible("mock/base", BackendOptions(base_url=url, args=settings))


async def test_the_body_carries_the_transcript_prompt_and_its_stops() -> None:
    async with MockOpenAIServer(completion_fn=lambda body: " It is safe.") as server:
        model = completions_model(server.url)
        config = GenerateConfig(max_tokens=9, temperature=0.5, seed=3, stop=("END", "\nUser:"))
        completion = await model.generate(CONVERSATION, config)
        await model.aclose()
    (request,) = server.requests
    assert request["api"] == "completions"
    assert request["messages"][0]["content"] == (
        "System: Keep the secret.\n\nUser: Hello.\n\nAssistant: Hi.\n\nUser: What is it?\n\n"
        "Assistant:"
    )
    assert request["params"] == {
        "model": "base",
        "max_tokens": 9,
        "temperature": 0.5,
        "top_p": 1.0,
        "seed": 3,
        "stop": ["\nUser:", "END"],  # the template's first, each once
    }
    assert completion.text == "It is safe."  # the leading space cleaned off


async def test_the_reply_stops_at_the_next_user_turn_and_is_cleaned() -> None:
    def chatty(body: dict[str, Any]) -> str:
        return " Sure thing.\n\nUser: and another question\n\nAssistant: more"

    async with MockOpenAIServer(completion_fn=chatty) as server:
        model = completions_model(server.url)
        completion = await model.generate(CONVERSATION, GenerateConfig())
        await model.aclose()
    assert completion.text == "Sure thing."
    assert completion.finish_reason == "stop"
    assert completion.endpoint == server.url


@pytest.mark.parametrize("kind", ["malformed", "nochoices", "500"])
async def test_a_bad_completions_reply_is_retried(kind: str) -> None:
    async with MockOpenAIServer(completion_fn=lambda body: " fine") as server:
        model = completions_model(server.url)
        messages = [Message(role="user", content=f"[[fault:{kind}x1]]")]
        completion = await model.generate(messages, GenerateConfig())
        await model.aclose()
    assert completion.text == "fine"
    assert [r["fault"] for r in server.requests] == [kind, None]


def test_a_chat_shaped_reply_is_malformed_for_completions() -> None:
    chat = b'{"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}'
    with pytest.raises(AttemptFailed, match="malformed reply") as caught:
        parse_reply(chat, api="completions")
    assert not caught.value.is_server_down
    text = b'{"choices": [{"text": " hi", "finish_reason": "stop"}], "usage": {"prompt_tokens": 3}}'
    reply = parse_reply(text, api="completions")
    assert (reply.text, reply.prompt_tokens) == (" hi", 3)


def test_identity_and_info_carry_the_api_and_the_template(tmp_path: Path) -> None:
    url = "http://127.0.0.1:8000/v1"
    chat = OpenAIModel.create_compatible("mock/base", BackendOptions(base_url=url))
    default = completions_model(url)
    assert chat.info.transcript is None
    assert default.info.identity == (
        f"openai-api/mock/base@{url}+api:completions+transcript:{DEFAULT_TRANSCRIPT.fingerprint}"
    )
    assert default.info.transcript == DEFAULT_TRANSCRIPT.to_json()
    custom_file = tmp_path / "turns.toml"
    custom_file.write_text('user = "Q: {content}\\n"\nstop = ["\\nQ:"]\n', encoding="utf-8")
    custom = completions_model(url, transcript=str(custom_file))
    assert custom.info.identity != default.info.identity
    assert json.loads(custom.info.transcript or "")["stop"] == ["\nQ:"]


async def test_a_template_file_shapes_prompt_and_stops(tmp_path: Path) -> None:
    custom_file = tmp_path / "turns.toml"
    custom_file.write_text(
        'user = "Q: {content}\\n"\ngeneration_prompt = "A:"\nstop = ["\\nQ:"]\n', encoding="utf-8"
    )
    async with MockOpenAIServer() as server:
        model = completions_model(server.url, transcript=str(custom_file))
        await model.generate([Message(role="user", content="2+2?")], GenerateConfig())
        await model.aclose()
    assert server.requests[0]["messages"][0]["content"] == "Q: 2+2?\nA:"
    assert server.requests[0]["params"]["stop"] == ["\nQ:"]


def test_a_transcript_without_api_completions_is_a_config_error() -> None:
    options = BackendOptions(base_url="http://127.0.0.1:8000/v1", args={"transcript": "default"})
    with pytest.raises(ConfigError, match="-M transcript=default needs -M api=completions"):
        OpenAIModel.create_compatible("mock/base", options)


def test_a_bad_api_or_template_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"-M api: Input should be 'chat' or 'completions'"):
        completions_model("http://127.0.0.1:8000/v1", api="text")
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=rf"openai-api/mock/base: transcript file {missing}"):
        completions_model("http://127.0.0.1:8000/v1", transcript=str(missing))


# --- a real server --------------------------------------------------------------------------------


@pytest.fixture
def llama_completions_server() -> Iterator[str]:
    with serve_embedded_model() as url:
        yield url


@pytest.fixture
async def recording_proxy(llama_completions_server: str) -> AsyncIterator[tuple[str, list[Any]]]:
    """Forwards to the real server, keeping each /completions body it passed on."""
    bodies: list[Any] = []
    upstream = llama_completions_server
    await wait_until_serving(upstream)
    async with ClientSession() as client:

        async def forward(request: web.Request) -> web.Response:
            raw = await request.read()
            if request.method == "POST":
                bodies.append(json.loads(raw))
            target = f"{upstream}{request.path.removeprefix('/v1')}"
            headers = {"Content-Type": "application/json"}
            async with client.request(request.method, target, data=raw, headers=headers) as reply:
                return web.Response(
                    body=await reply.read(), status=reply.status, content_type="application/json"
                )

        app = web.Application()
        app.router.add_route("*", "/v1/{tail:.*}", forward)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        yield f"http://127.0.0.1:{port}/v1", bodies
        await runner.cleanup()


@pytest.mark.slow
@pytest.mark.subprocess
async def test_smoke_runs_through_llama_cpp_servers_completions(
    recording_proxy: tuple[str, list[Any]], store: Store
) -> None:
    url, bodies = recording_proxy
    spec = run_spec(
        "smoke",
        "openai-api/llamacpp-server/smollm2",
        None,
        {
            "base_url": url,
            "model_args": {"api": "completions", "timeout_s": "60"},
            "max_tokens": 24,
        },
    )
    report = await evaluate(spec, store)
    assert report.run.status == "completed"
    assert store.count_results(report.run.id)["ok"] == 6
    assert len(bodies) >= 7  # four questions, three conversation turns
    for body in bodies:
        assert "messages" not in body
        assert body["prompt"].startswith(("User: Rule:", "System: The password is"))
        assert body["prompt"].endswith("\n\nAssistant:")
        assert body["stop"] == ["\nUser:"]
        assert (body["model"], body["max_tokens"]) == ("smollm2", 24)
