"""What a single run and a batch of runs say and decide alike.

Kept apart from both commands so that neither imports the other: how an option is spelled in an
error, the line that names a run before it starts, and when item errors still exit 0.
"""

from typing import TYPE_CHECKING

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
    from rulebench.engine.run_line import settings_terms

    named = f"[bold]{escape_markup(spec.task)}[/bold] on [bold]{escape_markup(spec.model)}[/bold]"
    return f"{named}: {escape_markup(settings_terms(spec))}"


def reasoning_terms(settings: "GenerateConfig") -> str:
    """The reasoning options set, as markup (`engine.run_line.reasoning_terms`)."""
    from rulebench.engine.run_line import reasoning_terms as plain_terms

    return escape_markup(plain_terms(settings))


def is_tolerated(errors: int, finished: int, fail_on_error: float) -> bool:
    """Whether a run failed only by item errors, few enough for --fail-on-error."""
    # Division, not fail_on_error * finished: 57/100 rounds to the same float as 0.57 does.
    return errors > 0 and errors / finished <= fail_on_error
