"""What a single run and a batch of runs say and decide alike.

Kept apart from both commands so that neither imports the other: how an option is spelled in an
error, the line that names a run before it starts, and when item errors still exit 0.
"""

from typing import TYPE_CHECKING

from rulebench.core.messages import DEFAULT_TAGS
from rulebench.report.untrusted import escape_markup

if TYPE_CHECKING:
    from rulebench.core.messages import GenerateConfig
    from rulebench.engine.runner import RunSpec


def option_name(field: str) -> str:
    """How the CLI spells a run setting or config field in an error: --max-tokens, -M."""
    return {"model_args": "-M", "task_config": "task option"}.get(
        field, "--" + field.replace("_", "-")
    )


def describe_spec(spec: "RunSpec") -> str:
    """The line (markup) naming a run's task, model and settings before it starts."""
    from rulebench.engine.catalog import protocol_notes

    settings = spec.generate
    return (
        f"[bold]{escape_markup(spec.task)}[/bold] on [bold]{escape_markup(spec.model)}[/bold]: "
        f"max_tokens={settings.max_tokens} "
        f"temperature={settings.temperature} concurrency={spec.concurrency}"
        + reasoning_terms(settings)
        + (f" limit={spec.limit}" if spec.limit is not None else "")
        + (f" shard={spec.shard}" if spec.shard is not None else "")
        + ("" if spec.use_cache else " (no cache)")
        + "".join(f"; {escape_markup(note)}" for note in protocol_notes(spec))
    )


def reasoning_terms(settings: "GenerateConfig") -> str:
    """The reasoning options set, as the run line names them (nothing when none is set)."""
    options = settings.reasoning
    terms = []
    if options.thinking is not None:
        terms.append(f"thinking={'on' if options.thinking else 'off'}")
    if options.effort is not None:
        terms.append(f"reasoning_effort={options.effort}")
    if options.tags != DEFAULT_TAGS:
        tags = f"{options.tags.start} {options.tags.end}"
        terms.append(f"reasoning_tags='{escape_markup(tags)}'")
    return "".join(f" {term}" for term in terms)


def is_tolerated(errors: int, finished: int, fail_on_error: float) -> bool:
    """Whether a run failed only by item errors, few enough for --fail-on-error."""
    # Division, not fail_on_error * finished: 57/100 rounds to the same float as 0.57 does.
    return errors > 0 and errors / finished <= fail_on_error
