"""The hf backend: transformers on CPU or GPU, batched generation, log-likelihood scoring.

It is the backend GCG and IRFT build on (gradients, adapters); for plain evaluation on a CPU the
llamacpp backend is several times faster. Weights come only from a local path or the local
Hugging Face cache: nothing is downloaded. Prompts are the tokenizer's chat template, a template
file (`-M chat_template=`) or a plain-text transcript (`-M transcript=`; see
local_chat.choose_prompt).
"""

import asyncio
import atexit
import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.errors import ModelError
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.models.base import BackendOptions, ChoiceScores, ModelInfo, parse_backend_args
from rulebench.models.hf.batching import BatchStats, GenerationJob, HFWorker, Job, ScoringJob
from rulebench.models.hf.loading import (
    HFSource,
    LoadedModel,
    check_adapter,
    load_model,
    resolve_source,
)
from rulebench.models.local_chat import (
    NO_VARIABLES,
    PromptOptions,
    SystemRoleSetting,
    TemplateRenderer,
    TemplateSource,
    TemplateVariables,
    choose_prompt,
    ends_in_open_thinking,
    to_completion,
)

logger = logging.getLogger(__name__)

ResultT = TypeVar("ResultT")

Device = Literal["auto", "cpu", "cuda", "mps"]
DType = Literal["auto", "float32", "bfloat16", "float16"]


class HFConfig(BaseModel):
    """Settings of the hf backend, from `-M key=value`."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    device: Device = "auto"
    """auto picks cuda, then mps, then cpu."""
    dtype: DType = "auto"
    """auto: float32 on the CPU (bfloat16 matmuls are slow there), bfloat16 on a GPU."""
    max_batch_size: int = Field(default=8, ge=1)
    """Most requests generated together; requests that arrive together share a batch."""
    system_role: SystemRoleSetting = "auto"
    adapter: Path | None = None
    """A LoRA adapter folder (`rulebench train irft` writes one) folded into the weights."""
    transcript: str | None = None
    """`default` or a TOML file: prompt with a plain-text transcript, not the chat template
    (a tokenizer without a chat template gets the default transcript anyway)."""
    chat_template: Path | None = None
    """A Jinja file replacing the tokenizer's chat template, for models whose own is wrong."""


_workers: dict[tuple[HFSource, Device, DType, int, Path | None], HFWorker] = {}
_workers_lock = threading.Lock()


def shared_worker(source: HFSource, config: HFConfig) -> HFWorker:
    """Return the process's worker for this model and settings, loading the weights once."""
    adapter = config.adapter.expanduser().resolve() if config.adapter else None
    key = (source, config.device, config.dtype, config.max_batch_size, adapter)
    with _workers_lock:
        worker = _workers.get(key)
        if worker is None or worker.closed:
            if not _workers:  # freed in order at exit (rulebench.models.release)
                atexit.register(free_hf_cache)
            logger.info("loading %s with transformers", source.display_name)
            loaded = load_model(source, config.device, config.dtype, adapter)
            worker = HFWorker(loaded, config.max_batch_size)
            _workers[key] = worker
        return worker


def free_hf_cache() -> None:
    """Stop every shared worker and drop its model; later models load afresh (for tests)."""
    with _workers_lock:
        workers = list(_workers.values())
        _workers.clear()
        atexit.unregister(free_hf_cache)
    for worker in workers:
        worker.close()


class HFModel:
    """A transformers chat model that batches concurrent requests and scores choices."""

    def __init__(self, worker: HFWorker, source: HFSource, config: HFConfig) -> None:
        self._worker = worker
        options = PromptOptions(config.transcript, config.chat_template, config.system_role)
        self._prompt = choose_prompt(
            f"hf/{source.display_name}", options, _template_source(worker.loaded)
        )
        # The dtype changes the numbers, hence replies: float32 and bfloat16 runs cache apart.
        identity = f"{source.identity}+{worker.loaded.dtype_name}"
        if config.adapter is not None:
            # Tuned weights answer differently: an adapter (by content) is part of the key.
            identity += f"+lora@sha256:{check_adapter(config.adapter.expanduser())}"
        self._info = ModelInfo(
            provider="hf",
            name=source.display_name,
            identity=identity + self._prompt.identity_suffix,
            supports_system_role=self._prompt.fallback.supports_system_role,
            transcript=self._prompt.transcript_json,
        )

    @classmethod
    def create(cls, name: str, options: BackendOptions) -> "HFModel":
        """Build from `hf/<local path | cached hub id | SmolLM2-135M-Instruct>` and `-M`."""
        config = parse_backend_args(HFConfig, options.args, "hf")
        source = resolve_source(name)
        if config.adapter is not None:
            check_adapter(config.adapter.expanduser())  # a clear error before any loading
        return cls(shared_worker(source, config), source, config)

    @property
    def info(self) -> ModelInfo:
        """Provider, name and identity (revision or file hash) of the model."""
        return self._info

    @property
    def stats(self) -> BatchStats:
        """Batch sizes the shared worker has run, to show that batching happens."""
        return self._worker.stats

    @property
    def loaded(self) -> LoadedModel:
        """The shared model and tokenizer, for code that needs gradients (GCG, IRFT)."""
        return self._worker.loaded

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        """Reply to the conversation, batched with the other requests waiting at the time."""
        start = time.perf_counter()
        prompt, merged = self._render(messages, config.reasoning.thinking)
        job = GenerationJob(prompt=prompt, config=self._prompt.request_config(config))
        result = await self._submit(job)
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
        choices = self._prompt.scored_choices(choices)
        return await self._submit(ScoringJob(prompt=prompt, choices=choices))

    async def aclose(self) -> None:
        """Keep the shared model loaded: other models in this process may use it.

        `free_hf_cache()` frees it when nothing needs it any more.
        """

    def _render(
        self, messages: Sequence[Message], thinking: bool | None = None
    ) -> tuple[str, bool]:
        """The prompt text, ending where the reply starts, and whether system text was merged.

        Generation and scoring both use it, so a choice is scored as the continuation of the
        very prompt a reply would follow. `thinking` is the request's switch (scoring has none).
        """
        return self._prompt.render(messages, thinking)

    async def _submit(self, job: Job[ResultT]) -> ResultT:
        if self._worker.closed:
            raise ModelError(f"hf/{self._info.name}: the model was freed")
        self._worker.submit(job)
        return await asyncio.wrap_future(job.future)


def _template_source(loaded: LoadedModel) -> TemplateSource:
    """The tokenizer's own chat template (if it has one) and a way to use an override."""

    def compile_template(text: str) -> TemplateRenderer:
        def render(
            messages: list[dict[str, str]], variables: TemplateVariables = NO_VARIABLES, /
        ) -> str:
            return loaded.render(messages, variables, chat_template=text)

        return render

    native = loaded.render if loaded.has_chat_template else None
    return TemplateSource(native, compile_template, loaded.plain_text_bos())
