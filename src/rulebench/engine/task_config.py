"""The typed configuration every task takes, and the generation defaults it owns.

A task's config is what defines its items (stored with the run for --resume); the defaults are
what its requests use unless the caller says otherwise. Both live with the task, so the CLI,
the Python API and play send the same requests for the same run.
"""

from pydantic import BaseModel, ConfigDict, Field


class GenerationDefaults(BaseModel):
    """A task's reply limit and temperature when a run names neither."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int = Field(ge=1)
    """Long enough for the task's answers, short enough for a CPU model."""
    temperature: float = Field(default=0.0, ge=0.0)
    """Greedy by default: the papers decode at temperature 0."""


class TaskConfig(BaseModel):
    """Base of every task's config: frozen, unknown fields refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def generation_defaults(self) -> GenerationDefaults:
        """The reply limit and temperature this configuration calls for."""
        return GenerationDefaults(max_tokens=256)
