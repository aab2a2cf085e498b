"""A stored run's wording, read back from its configuration for report headers."""

from collections.abc import Mapping

from pydantic import JsonValue, ValidationError

from rulebench.core.wording import UpstreamText, prompts_label


def stored_prompts_label(config: Mapping[str, JsonValue]) -> str:
    """The wording label of a stored run's config; runs stored before the choice: rulebench."""
    if config.get("prompts") != "upstream":
        return prompts_label("rulebench")
    try:
        source = UpstreamText.model_validate(config.get("upstream_source"))
    except ValidationError:
        return prompts_label("upstream")
    return prompts_label("upstream", source)
