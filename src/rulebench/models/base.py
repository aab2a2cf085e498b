"""The protocol every backend meets, and the facts about a model that results depend on."""

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar, runtime_checkable

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


@runtime_checkable
class ChoiceScorer(Protocol):
    """A local model that can score candidate answers by log-likelihood."""

    async def score_choices(
        self, messages: Sequence[Message], choices: Sequence[str]
    ) -> list[float]:
        """Return the summed log-probability of each choice as the assistant's reply."""
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
