"""The llamacpp backend: a GGUF file on the CPU through llama-cpp-python, the embedded default too.

Speed on CPU comes from llama.cpp contexts ("lanes", one per core) decoding side by side, each
generating its sequences together, and from reusing the evaluated cells of prompts that share a
prefix (the rules come first in every prompt). The model, its lanes and the prompt cache are
shared per process (see llamacpp_engine), and loaded on the first request: a run answered from
the response cache never imports llama.cpp (the chat template comes from gguf_facts).

Prompts are the GGUF's chat template, a template file (`-M chat_template=`) or, for
completion-only models, a plain-text transcript (`-M transcript=`; see local_chat.choose_prompt).
"""

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.errors import ConfigError
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.models.base import (
    BackendOptions,
    ChoiceScores,
    ModelInfo,
    count_scoring_tokens,
    parse_backend_args,
)
from rulebench.models.embedded import embedded_gguf_path, file_fingerprint
from rulebench.models.llamacpp.batch_requests import (
    EvalStats,
    GenerationRequest,
    LlamaSettings,
    Request,
    ScoringRequest,
)
from rulebench.models.llamacpp.gguf_facts import (
    GgufFacts,
    cached_facts,
    chat_renderer,
    remember_facts,
)
from rulebench.models.local_chat import (
    PromptOptions,
    SystemRoleSetting,
    TemplateRenderer,
    TemplateSource,
    choose_prompt,
    ends_in_open_thinking,
    to_completion,
)
from rulebench.models.registry import EMBEDDED_MODEL_NAME

if TYPE_CHECKING:  # imported on first use: it loads numpy and llama_cpp
    from rulebench.models.llamacpp.engine import LlamaEngine

ResultT = TypeVar("ResultT")


class LlamaCppConfig(BaseModel):
    """Settings of the llamacpp backend, from `-M key=value`."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    n_ctx: int = Field(default=4096, ge=64)
    """Context length in tokens: prompt plus reply must fit."""
    n_threads: int | None = Field(default=None, ge=1)
    """Threads of each lane for generating tokens (default: chosen with the lanes from the
    cores and the prompts in flight, `llamacpp_layout`). Threads of one llama.cpp call wait for
    each other, so beside a busy neighbour 2 threads fall below 1: set 1 on a shared machine."""
    n_threads_batch: int | None = Field(default=None, ge=1)
    """Threads of each lane for evaluating prompts (default: as n_threads is chosen). On an idle
    machine more are faster; beside a busy process they fall below one thread
    (bench/bench_local.py --threads-batch 1,2)."""
    n_batch: int = Field(default=512, ge=8)
    """Most prompt tokens decoded in one llama.cpp call."""
    n_seq_max: int | None = Field(default=None, ge=1)
    """Sequences each lane decodes together, each with n_ctx tokens of KV cache (default: as
    many as 384 MiB of KV cache holds, at most 8 in all; see llamacpp_engine)."""
    lanes: int | None = Field(default=None, ge=1)
    """llama.cpp contexts decoding side by side (default: chosen from the cores and the prompts
    in flight: one lane on every core for a few prompts, a lane per core for many)."""
    prefix_reuse: bool = True
    """Reuse the KV cache of the longest shared token prefix; false re-evaluates every prompt."""
    system_role: SystemRoleSetting = "auto"
    transcript: str | None = None
    """`default` or a TOML file: prompt with a plain-text transcript, not the chat template
    (a GGUF without a chat template gets the default transcript anyway)."""
    chat_template: Path | None = None
    """A Jinja file replacing the GGUF's chat template, for models whose own is wrong."""


def resolve_gguf(name: str) -> tuple[Path, str]:
    """Return the GGUF file a model name means, and the name to report it under.

    Raises:
        ConfigError: the name is neither the embedded model nor an existing .gguf file.
    """
    if name.lower() == EMBEDDED_MODEL_NAME.lower():
        return embedded_gguf_path(), EMBEDDED_MODEL_NAME
    path = Path(name).expanduser()
    if path.suffix.lower() != ".gguf":
        raise ConfigError(
            f"llamacpp: '{name}' is neither {EMBEDDED_MODEL_NAME} (the embedded model) nor a "
            "path to a .gguf file"
        )
    if not path.is_file():
        raise ConfigError(f"llamacpp: model file {path} does not exist")
    return path.resolve(), name


class LlamaCppModel:
    """A chat model on llama.cpp that also scores choices by log-likelihood."""

    def __init__(
        self,
        name: str,
        config: LlamaCppConfig,
        settings: LlamaSettings,
        facts: GgufFacts,
        engine: "LlamaEngine | None" = None,
    ) -> None:
        """`engine` is the loaded model, if it is already; else it loads on the first request."""
        self._settings = settings
        self._engine = engine
        self._config = config
        options = PromptOptions(config.transcript, config.chat_template, config.system_role)
        self._prompt = choose_prompt(f"llamacpp/{name}", options, _template_source(facts))
        path = settings.path
        identity = f"llamacpp/{path.name}@sha256:{file_fingerprint(path)}"
        self._info = ModelInfo(
            provider="llamacpp",
            name=name,
            identity=identity + self._prompt.identity_suffix,
            supports_system_role=self._prompt.fallback.supports_system_role,
            transcript=self._prompt.transcript_json,
        )
        self.stats = EvalStats()
        """This model's token counts, to show how much of the prompts the KV cache saved."""
        self._in_flight: int | None = None

    @classmethod
    def create(cls, name: str, options: BackendOptions) -> "LlamaCppModel":
        """Build from `llamacpp/<SmolLM2-135M-Instruct | path.gguf>` and its `-M` settings.

        A file seen before (same size and mtime) is not loaded until a request needs it; a new
        one is loaded now, so a file llama.cpp cannot read fails before the run starts.
        """
        config = parse_backend_args(LlamaCppConfig, options.args, "llamacpp")
        path, display_name = resolve_gguf(name)
        settings = LlamaSettings(
            path=path,
            n_ctx=config.n_ctx,
            n_threads=config.n_threads,
            n_threads_batch=config.n_threads_batch,
            n_batch=config.n_batch,
            n_seq_max=config.n_seq_max,
            lanes=config.lanes,
        )
        facts = cached_facts(path)
        engine = None
        if facts is None:
            engine = _load_engine(settings)
            facts = engine.facts()
            remember_facts(path, facts)
        return cls(display_name, config, settings, facts, engine)

    @property
    def path(self) -> Path:
        """The GGUF file."""
        return self._settings.path

    @property
    def info(self) -> ModelInfo:
        """Provider, name and identity (file name and hash) of the model."""
        return self._info

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        """Reply to the conversation (chat template or transcript) with `config`'s sampling."""
        start = time.perf_counter()
        prompt, merged = self._render(messages, config.reasoning.thinking)
        request = GenerationRequest(
            prompt=prompt,
            prefix_reuse=self._config.prefix_reuse,
            stats=self.stats,
            config=self._prompt.request_config(config),
        )
        result = await self._submit(request)
        tags = config.reasoning.tags
        is_open = ends_in_open_thinking(prompt, tags)
        completion = to_completion(result, start, merged, tags, is_open)
        return self._prompt.finish(completion, config)

    async def score_choices(
        self, messages: Sequence[Message], choices: Sequence[str]
    ) -> ChoiceScores:
        """Score each choice as the assistant's reply, counting the tokens read."""
        if not choices:
            return ChoiceScores([], 0)
        prompt, _ = self._render(messages)
        request = ScoringRequest(
            prompt=prompt,
            prefix_reuse=self._config.prefix_reuse,
            stats=self.stats,
            choices=self._prompt.scored_choices(choices),
        )
        scores = await self._submit(request)
        lengths = [len(tokens) for tokens in request.choice_tokens]
        return ChoiceScores(scores, count_scoring_tokens(len(request.tokens), lengths))

    def expect_in_flight(self, requests: int) -> None:
        """How many prompts the run keeps in flight: the lanes are laid out for that many."""
        self._in_flight = requests
        if self._engine is not None:
            self._engine.expect_in_flight(requests)

    @property
    def run_notes(self) -> tuple[str, ...]:
        """The layout the engine chose (`llamacpp_layout`), once it has one."""
        layout = None if self._engine is None else self._engine.layout
        return () if layout is None else (layout.describe(),)

    async def aclose(self) -> None:
        """Keep the shared model loaded: other models in this process may use it.

        `llamacpp_engine.free_llama_cache()` frees it when nothing needs it any more.
        """

    def _render(
        self, messages: Sequence[Message], thinking: bool | None = None
    ) -> tuple[str, bool]:
        """The prompt text, ending where the reply starts, and whether system text was merged.

        Generation and scoring both use it, so a choice is scored as the continuation of the
        very prompt a reply would follow. `thinking` is the request's switch (scoring has none);
        a prompt that differs with it shares only its prefix's cells in the KV prefix cache.
        """
        return self._prompt.render(messages, thinking)

    async def _submit(self, request: Request[ResultT]) -> ResultT:
        engine = self._engine
        if engine is None:
            # Off the event loop: loading takes a while. Concurrent first requests all get
            # the process's one engine (shared_engine holds a lock while it loads).
            engine = self._engine = await asyncio.to_thread(_load_engine, self._settings)
            if self._in_flight is not None:
                engine.expect_in_flight(self._in_flight)
        engine.submit(request)
        return await asyncio.wrap_future(request.future)


def _load_engine(settings: LlamaSettings) -> "LlamaEngine":
    """The process's engine for these settings, loading the model if no engine has it yet."""
    from rulebench.models.llamacpp.engine import shared_engine

    return shared_engine(settings)


def _template_source(facts: GgufFacts) -> TemplateSource:
    """The GGUF's own chat template (if it has one) and a way to compile an override."""

    def compile_template(text: str) -> TemplateRenderer:
        return chat_renderer(text, facts.bos_text, facts.eos_text)

    native = compile_template(facts.chat_template) if facts.chat_template else None
    return TemplateSource(native, compile_template, native_takes_system=facts.takes_system)
