"""The typed configuration every task takes, and the generation defaults it owns.

A task's config is what defines its items (stored with the run for --resume); the defaults are
what its requests use unless the caller says otherwise. Both live with the task, so the CLI,
the Python API and play send the same requests for the same run.
"""

from collections.abc import Mapping
from typing import ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from rulebench.core.errors import ConfigError
from rulebench.core.validation import describe_problems


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

    default_concurrency: ClassVar[int] = 8
    """Items in flight at once when the run does not say."""
    adapts_concurrency: ClassVar[bool] = True
    """Whether a run that does not say lets a served model's backend find the concurrency
    from where `default_concurrency` starts it (`RunSpec.adaptive_concurrency`)."""

    @classmethod
    def load_inputs(cls, fields: Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
        """The fields with what they name by path read in (a clone's folder: its record).

        The load step for fields a caller gives (the Python API, an experiment file): it runs
        once, before validation, because a config's validators read no files. Most tasks
        name nothing to read.
        """
        return fields

    def with_inputs_loaded(self) -> Self:
        """This configuration holding what it names loaded (a suite's cases), for later hooks.

        The engine calls it once as it makes a run's spec, before `with_run_settings`,
        `resolved_for` and `generation_defaults`, so those read nothing again; a front end that
        loaded the inputs already hands its config on holding them. Most tasks hold nothing.
        """
        return self

    def generation_defaults(self) -> GenerationDefaults:
        """The reply limit and temperature this configuration calls for."""
        return GenerationDefaults(max_tokens=256)

    def choice_scoring(self) -> str | None:
        """The setting, in words, that makes this run score answers by log-likelihood.

        None when the run generates its answers. The runner asks before any item runs and
        refuses a model that cannot score choices, which would otherwise fail every item the
        same way.
        """
        return None

    def protocol_notes(self) -> tuple[str, ...]:
        """What a run of this configuration does beyond its decoding, one phrase each.

        The run line names them before the run starts (re-asking a reply, for example), so a
        reader sees the protocol that made the numbers. Most configurations have none.
        """
        return ()

    def resolved_for(self, model: str) -> Self:
        """This configuration as a new run on `model` (a spec) stores it.

        A task whose items depend on more than its options (the model's name, the revision of
        a file read at run time) fills that in here, so the CLI, the Python API and every run
        of a batch record and make the same items. Most tasks need nothing.
        """
        return self

    def with_run_settings(self, given: Mapping[str, JsonValue]) -> Self:
        """This configuration under the run settings the caller named (None: not named).

        A task whose items follow a run setting (loadtest makes `limit` items), or that must
        know which settings were named (saved scenario cases replay their own otherwise),
        takes them in here, so the CLI and the Python API store the same config.
        """
        return self


ConfigT = TypeVar("ConfigT", bound=TaskConfig)


def parse_task_config(model: type[ConfigT], task: str, fields: Mapping[str, JsonValue]) -> ConfigT:
    """Validate a task's config fields; a bad field is one ConfigError line naming it.

    Raises:
        ConfigError: "task <name>: invalid config: <field>: <problem>; ...".
    """
    try:
        return model.model_validate(dict(fields))
    except ValidationError as exc:
        raise ConfigError(
            f"task {task}: invalid config: {describe_problems(exc, 'config')}"
        ) from None
