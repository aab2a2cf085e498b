"""The protocol every backend meets, and the facts about a model that results depend on."""

from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError

from rulebench.core.errors import ConfigError
from rulebench.core.messages import Completion, GenerateConfig, Message


class ModelInfo(BaseModel):
    """Who answers: enough to label results and to key the response cache."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    name: str
    identity: str
    """Name plus what pins the weights (file hash, revision, server URL); part of the cache key."""
    supports_system_role: bool = True
    transcript: str | None = None
    """The transcript template in force (its JSON) when the model is prompted as plain text
    instead of through a chat API or chat template; stored with the run's results."""


@runtime_checkable
class Model(Protocol):
    """A chat model: messages in, one completion out."""

    @property
    def info(self) -> ModelInfo:
        """Provider, name and identity of the model."""
        ...

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        """Reply to the conversation; raise ModelError (or TransientModelError) on failure."""
        ...

    async def aclose(self) -> None:
        """Release connections, threads and memory held for this model."""
        ...


class ChoiceScores(NamedTuple):
    """Log-likelihoods of candidate replies, and the tokens read to score them."""

    scores: list[float]
    """The summed log-probability of each choice as the assistant's reply, in order."""
    tokens: int
    """The prompt's tokens once per choice plus each choice's own: what scoring every choice
    in a request of its own would read (lm-eval's accounting), whatever the backend reused.
    Counted apart from generation tokens: they are read, never generated."""


def count_scoring_tokens(prompt_tokens: int, choice_tokens: Sequence[int]) -> int:
    """ChoiceScores.tokens for a prompt of `prompt_tokens` and choices of these lengths."""
    return prompt_tokens * len(choice_tokens) + sum(choice_tokens)


@runtime_checkable
class ChoiceScorer(Protocol):
    """A local model that can score candidate answers by log-likelihood."""

    async def score_choices(
        self, messages: Sequence[Message], choices: Sequence[str]
    ) -> ChoiceScores:
        """Score each choice as the assistant's reply, counting the tokens read."""
        ...


class BackendOptions(BaseModel):
    """Options common to every backend, set from the command line."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    args: dict[str, str] = {}
    """Backend-specific settings from `-M key=value`, validated by the backend's own config."""
    base_url: str | None = None
    """Endpoint override for HTTP backends (`--base-url`)."""


ConfigT = TypeVar("ConfigT", bound=BaseModel)


def parse_backend_args(
    config_type: type[ConfigT], args: Mapping[str, str], provider: str
) -> ConfigT:
    """Validate `-M key=value` settings against a backend's config, naming the bad key on error."""
    try:
        return config_type.model_validate(dict(args))
    except ValidationError as exc:
        problems = "; ".join(
            f"-M {'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        known = ", ".join(sorted(config_type.model_fields))
        raise ConfigError(f"{provider}: {problems} (known settings: {known})") from None
