"""Rendering a security scenario's prompt from its setting, rule templates and parameters.

Setting and rule texts are templates with `{field}` slots; the prompt fills them with the
parameters and the redacted prompt with the same parameters, secrets replaced by `REDACTED`.
"""

from collections.abc import Mapping, Sequence

from rulebench.scenarios.base import RuleSpec, compose_prompt

REDACTED = "[REDACTED]"


def join_names(names: Sequence[str]) -> str:
    """'A', 'A and B', 'A, B and C': how the prompts list users."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def render(
    setting: str, rules: Sequence[RuleSpec], values: Mapping[str, str], reminders: bool
) -> str:
    """The prompt: the setting and every rule's text with `values` filled in."""
    return compose_prompt(
        setting.format_map(values), [rule.text.format_map(values) for rule in rules], reminders
    )
