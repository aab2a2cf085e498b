"""What the runner needs from a benchmark (a Task), and the model as an item sees it (a Session)."""

import time
from collections.abc import Iterable, Sequence
from typing import Protocol

from pydantic import JsonValue

from rulebench.core.errors import ConfigError, ModelError
from rulebench.core.items import Item, ItemResult, Outcome, content_hash
from rulebench.core.messages import Completion, GenerateConfig, Message, Usage
from rulebench.core.reasoning import split_completion
from rulebench.core.text import repair_surrogates, surrogate_warning
from rulebench.engine.store.cache import ReplyCache, make_cache_key
from rulebench.models.base import ChoiceScorer, Model


class Task(Protocol):
    """A benchmark as the runner sees it: items to run and how to run and score one of them.

    Both families meet this: a question is solved with one generate call, a multi-turn test case
    with one call per user turn. Returning a Sized iterable from `items` gives progress an ETA.
    """

    name: str
    """Registered name, e.g. "smoke"; stored with the run."""

    def config(self) -> dict[str, JsonValue]:
        """Everything that defines the items (sizes, seeds, settings), to rebuild them on resume."""
        ...

    def items(self) -> Iterable[Item]:
        """The items, in a stable order, each with a unique stable id."""
        ...

    async def solve(self, item: Item, session: "Session") -> Outcome:
        """Run one item against the model through `session` and score it."""
        ...


class Session:
    """One item's view of the model: the run's generation config, the cache, and cost accounting.

    Tasks call `generate` (and `score_choices`) on it; the runner turns what it recorded into the
    item's result, so tasks never deal with caching, tokens or timing.
    """

    def __init__(
        self,
        model: Model,
        config: GenerateConfig,
        cache: ReplyCache | None,
        item_id: str,
        repeat: int = 0,
    ) -> None:
        self.model = model
        self.config = config if not repeat else with_repeat_seed(config, repeat)
        self._repeat = repeat
        self._cache = cache
        self._item_id = item_id
        self.usage = _NO_USAGE
        self.cached_usage = _NO_USAGE
        self.scoring_tokens = 0
        self.endpoints: list[str] = []
        self.latency_s = 0.0
        self.calls = 0
        self.attempts = 0
        """Requests sent to the model, retries included; cached replies sent none."""
        self.cache_hits = 0
        self.system_merged = False
        self.last_messages: tuple[Message, ...] = ()
        self.last_reply: str | None = None
        self.last_reasoning: str | None = None
        self.is_last_reasoning_unfinished = False
        self.cut_replies = 0
        """Replies whose thinking the reply limit cut short: the item is then not scored."""
        self.warnings: list[str] = []

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig | None = None
    ) -> Completion:
        """Get the model's reply, from the cache when the same request was answered before."""
        if config is None:
            config = self.config
        elif self._repeat:
            config = with_repeat_seed(config, self._repeat)
        self.last_messages, self.last_reply = tuple(messages), None
        self.last_reasoning, self.is_last_reasoning_unfinished = None, False
        if self._cache is None:
            completion = keepable(await self._call_model(messages, config))
        else:
            key = make_cache_key(self.model.info, messages, config, self._repeat)
            cached = from_before_reasoning(self._cache.get(key), config)
            completion = cached or keepable(await self._call_model(messages, config))
            if cached is None:
                self._cache.put(key, completion, self._item_id)
        self._account(completion)
        self.last_reply = completion.text
        self.last_reasoning = completion.reasoning or None
        self.is_last_reasoning_unfinished = completion.is_reasoning_unfinished
        return completion

    async def _call_model(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        try:
            return await self.model.generate(messages, config)
        except ModelError as exc:  # the requests a failed call sent count too
            self.attempts += exc.attempts
            raise

    async def score_choices(
        self, messages: Sequence[Message], choices: Sequence[str]
    ) -> list[float]:
        """Log-likelihood of each choice as the reply; only local backends can do this."""
        if not isinstance(self.model, ChoiceScorer):
            raise ConfigError(
                f"{self.model.info.provider} models cannot score choices by log-likelihood; "
                "use a local backend (llamacpp or hf) for this scoring option"
            )
        start = time.perf_counter()
        self.last_messages = tuple(messages)
        scored = await self.model.score_choices(messages, choices)
        self.calls += 1
        self.attempts += 1
        self.scoring_tokens += scored.tokens
        self.latency_s += time.perf_counter() - start
        return scored.scores

    def _account(self, completion: Completion) -> None:
        self.warnings.extend(w for w in completion.warnings if w not in self.warnings)
        self.calls += 1
        self.cache_hits += completion.cached
        self.cut_replies += completion.is_reasoning_unfinished
        self.system_merged |= completion.system_merged
        if completion.cached:
            self.cached_usage = _add(self.cached_usage, completion.usage)
            return
        self.attempts += completion.attempts
        self.usage = _add(self.usage, completion.usage)
        if completion.retried_usage != _NO_USAGE:  # spent on replies retried: still spent
            self.usage = _add(self.usage, completion.retried_usage)
        self.latency_s += completion.latency_s
        if completion.endpoint is not None and completion.endpoint not in self.endpoints:
            self.endpoints.append(completion.endpoint)

    def result(self, item: Item, outcome: Outcome | None, error: str | None) -> ItemResult:
        """The item's result from what this session recorded."""
        messages = self.last_messages
        if self.last_reply is not None:
            reply = Message(
                role="assistant", content=self.last_reply, reasoning=self.last_reasoning
            )
            messages = (*messages, reply)
        return ItemResult(
            item_id=item.id,
            messages=messages,
            reply=self.last_reply,
            reasoning=self.last_reasoning,
            is_reasoning_unfinished=self.is_last_reasoning_unfinished or self.cut_replies > 0,
            outcome=unscored(outcome) if outcome is not None and self.cut_replies else outcome,
            error=error,
            usage=self.usage,
            cached_usage=self.cached_usage,
            scoring_tokens=self.scoring_tokens,
            latency_s=self.latency_s,
            calls=self.calls,
            attempts=self.attempts,
            cache_hits=self.cache_hits,
            endpoints=tuple(self.endpoints),
            system_merged=self.system_merged,
            metadata=item.metadata,
            warnings=tuple(self.warnings),
        )


_NO_USAGE = Usage()


def _add(total: Usage, more: Usage) -> Usage:
    # Most items make one call: its usage is the total, with no new model to build.
    return more if total is _NO_USAGE else total + more


def with_repeat_seed(config: GenerateConfig, repeat: int) -> GenerateConfig:
    """The config of a repeat: a sampling seed of its own, derived from the run's seed.

    With one seed for all repeats, a sampling backend would draw the same reply every time and
    the spread across repeats would be zero by construction.
    """
    base = 0 if config.seed is None else config.seed
    seed = int(content_hash(["repeat-seed", base, repeat]), 16) % 2**31
    return config.model_copy(update={"seed": seed})


CUT_SHORT = "not scored: the reply limit cut the thinking short, so there is no answer"


def unscored(outcome: Outcome) -> Outcome:
    """The outcome of an item a reply of which was cut inside its thinking: counted, not scored.

    Its empty answer is neither a wrong answer nor a rule kept; what the task concluded stays
    in the details for a reader.
    """
    concluded: dict[str, JsonValue] = {
        "score": outcome.score,
        "passed": outcome.passed,
        "answer": outcome.answer,
    }
    return Outcome(reason=CUT_SHORT, details={**outcome.details, "before_cut": concluded})


def from_before_reasoning(cached: Completion | None, config: GenerateConfig) -> Completion | None:
    """A cached reply split as a fresh one is, so it scores and stores the same.

    Replies cached before reasoning was kept hold their thinking in `text`.
    """
    if cached is None or cached.reasoning:
        return cached
    return split_completion(cached, config.reasoning.tags)


def keepable(completion: Completion) -> Completion:
    """The completion with text every store and terminal can hold, the repair noted.

    Any backend may return a lone surrogate (a JSON escape of half an emoji); this is the one
    place every reply passes before it is cached, scored or stored.
    """
    text, count = repair_surrogates(completion.text)
    reasoning, reasoning_count = repair_surrogates(completion.reasoning)
    if not count and not reasoning_count:
        return completion
    warnings = list(completion.warnings)
    if count:
        warnings.append(surrogate_warning(count, "reply"))
    if reasoning_count:
        warnings.append(surrogate_warning(reasoning_count, "reasoning"))
    update = {"text": text, "reasoning": reasoning, "warnings": tuple(warnings)}
    return completion.model_copy(update=update)
