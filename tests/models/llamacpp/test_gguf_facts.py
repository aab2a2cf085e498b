"""The GGUF facts kept in the user cache, and the llamacpp model that loads on first request.

A run whose replies all come from the response cache should not pay for llama.cpp: with the
facts cached, building the model reads no weights, and the engine loads when a request needs it.
"""

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.llamacpp import backend as llamacpp
from rulebench.models.llamacpp.backend import LlamaCppModel
from rulebench.models.llamacpp.batch_requests import GenerationRequest, LlamaSettings, Request
from rulebench.models.llamacpp.gguf_facts import (
    FACTS_VERSION,
    GgufFacts,
    cached_facts,
    chat_renderer,
    remember_facts,
)
from rulebench.models.local_chat import Generated

ROLE_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}<|assistant|>"
USER_ONLY_TEMPLATE = (
    "{% for m in messages %}{% if m.role != 'system' %}[{{ m.content }}]{% endif %}{% endfor %}"
)
STRICT_TEMPLATE = (
    "{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('no system role') }}"
    "{% endif %}{{ m.content }}{% endfor %}"
)
FACTS = GgufFacts(ROLE_TEMPLATE, "<s>", "</s>", takes_system=True)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("RULEBENCH_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF stand-in")
    return path


def test_facts_come_back_for_the_same_file_version_only(cache: Path, weights: Path) -> None:
    assert cached_facts(weights) is None
    remember_facts(weights, FACTS)
    assert cached_facts(weights) == FACTS
    stamp = weights.stat().st_mtime_ns + 10**9
    os.utime(weights, ns=(stamp, stamp))  # the file was replaced: read the model again
    assert cached_facts(weights) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: "{torn",
        lambda text: text.replace(f'"version": {FACTS_VERSION}', '"version": 0'),
        lambda text: text.replace('"bos_text"', '"bos"'),
        lambda text: "[]",
    ],
    ids=["torn", "older version", "missing key", "not an object"],
)
def test_unusable_stored_facts_count_as_missing(cache: Path, weights: Path, damage: Any) -> None:
    remember_facts(weights, FACTS)
    stored = cache / "gguf_facts.json"
    stored.write_text(damage(stored.read_text()))
    assert cached_facts(weights) is None
    remember_facts(weights, FACTS)  # and the entry is written again over the damage
    assert cached_facts(weights) == FACTS


def test_an_unwritable_cache_only_costs_a_load(
    tmp_path: Path, weights: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RULEBENCH_CACHE_DIR", str(weights))  # a file: no folder there
    remember_facts(weights, FACTS)
    assert cached_facts(weights) is None
    assert cached_facts(tmp_path / "missing.gguf") is None


@pytest.mark.parametrize(
    ("template", "takes_system"),
    [(ROLE_TEMPLATE, True), (USER_ONLY_TEMPLATE, False), (STRICT_TEMPLATE, False), ("", False)],
    ids=["keeps it", "drops it", "raises", "no template"],
)
def test_the_system_role_is_probed_once_when_facts_are_read(
    template: str, takes_system: bool
) -> None:
    assert GgufFacts.of_template(template, "<s>", "</s>").takes_system is takes_system


def test_the_renderer_is_llama_cpps_own_formatter() -> None:
    render = chat_renderer("{{ bos_token }}{{ messages | tojson }}{{ eos_token }}", "<s>", "</s>")
    messages = [{"role": "user", "content": "é <b>"}]
    assert render(messages) == "<s>" + json.dumps(messages, ensure_ascii=False) + "</s>"


@dataclass
class StandInEngine:
    """Answers every generation with a fixed reply; counts how often it was loaded."""

    facts_read: GgufFacts = FACTS
    requests: list[Request[Any]] = field(default_factory=list)

    def facts(self) -> GgufFacts:
        return self.facts_read

    def submit(self, request: Request[Any]) -> None:
        self.requests.append(request)
        assert isinstance(request, GenerationRequest)
        request.future.set_result(Generated("ok", len(request.prompt), 1, "stop"))


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[LlamaSettings]:
    """Every engine load the llamacpp backend asks for, answered by one stand-in engine."""
    seen: list[LlamaSettings] = []
    engine = StandInEngine()

    def load(settings: LlamaSettings) -> StandInEngine:
        seen.append(settings)
        return engine

    monkeypatch.setattr(llamacpp, "_load_engine", load)
    return seen


async def test_a_known_file_loads_on_the_first_request_not_before(
    cache: Path, weights: Path, loads: list[LlamaSettings]
) -> None:
    remember_facts(weights, FACTS)
    model = LlamaCppModel.create(str(weights), BackendOptions())
    assert loads == []  # prompts and identity came from the cached facts
    assert model.info.supports_system_role
    conversation = [Message(role="system", content="S"), Message(role="user", content="Q")]
    assert model._render(conversation) == ("<|system|>S<|user|>Q<|assistant|>", False)
    replies = await asyncio.gather(
        *(model.generate(conversation, GenerateConfig(max_tokens=4)) for _ in range(3))
    )
    assert [reply.text for reply in replies] == ["ok"] * 3
    assert len(loads) >= 1 and {settings.path for settings in loads} == {weights}
    await model.generate(conversation, GenerateConfig(max_tokens=4))
    assert len(loads) <= 3  # once loaded, the model keeps its engine


def test_a_new_file_is_loaded_at_once_and_its_facts_kept(
    cache: Path, weights: Path, loads: list[LlamaSettings]
) -> None:
    first = LlamaCppModel.create(str(weights), BackendOptions())
    assert len(loads) == 1
    assert cached_facts(weights) == FACTS
    again = LlamaCppModel.create(str(weights), BackendOptions())
    assert len(loads) == 1
    assert again.info == first.info


def test_cached_facts_without_a_system_role_still_merge(
    cache: Path, weights: Path, loads: list[LlamaSettings]
) -> None:
    remember_facts(weights, GgufFacts(USER_ONLY_TEMPLATE, "", "", takes_system=False))
    model = LlamaCppModel.create(str(weights), BackendOptions())
    assert not model.info.supports_system_role
    assert model.info.identity.endswith("+merged-system")
    conversation = [Message(role="system", content="S"), Message(role="user", content="Q")]
    assert model._render(conversation) == ("[S\n\nQ]", True)


def test_a_changed_file_that_llama_cpp_rejects_fails_at_creation(
    cache: Path, weights: Path
) -> None:
    remember_facts(weights, FACTS)
    weights.write_bytes(b"not a gguf at all")  # another size: the facts no longer hold
    with pytest.raises(ConfigError, match=r"cannot load .*tiny\.gguf"):
        LlamaCppModel.create(str(weights), BackendOptions())


@pytest.mark.slow
def test_the_embedded_model_answers_from_cached_facts_without_loading_first(
    tmp_path: Path,
) -> None:
    """Two processes: the first reads and keeps the facts; the second starts without llama_cpp,
    builds the same identity, and loads the model when asked to generate."""
    script = textwrap.dedent(
        """
        import asyncio, json, sys
        from rulebench.core.messages import GenerateConfig, Message
        from rulebench.models.base import BackendOptions
        from rulebench.models.llamacpp.backend import LlamaCppModel
        from rulebench.models.registry import EMBEDDED_MODEL_NAME

        model = LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions())
        loaded_at_start = "llama_cpp" in sys.modules
        reply = asyncio.run(model.generate(
            [Message(role="user", content="Say hi.")], GenerateConfig(max_tokens=4)
        ))
        print(json.dumps({
            "identity": model.info.identity,
            "system": model.info.supports_system_role,
            "loaded_at_start": loaded_at_start,
            "loaded_after": "llama_cpp" in sys.modules,
            "prompt_tokens": reply.usage.prompt_tokens,
        }))
        """
    )
    env = {**os.environ, "RULEBENCH_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env=env, check=True, timeout=300)  # fmt: skip
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result

    first, second = run(), run()
    assert first["loaded_at_start"] and not second["loaded_at_start"]
    assert second["identity"] == first["identity"]
    assert second["system"] == first["system"]
    # The model answered, the second time too (the reply's length is the build's business).
    assert second["loaded_after"] and second["prompt_tokens"] == first["prompt_tokens"] > 0
