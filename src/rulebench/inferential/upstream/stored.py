"""A stored run's wording, read back from its configuration for report headers."""

from collections.abc import Mapping

from pydantic import JsonValue

from rulebench.core.wording import label_of_record
from rulebench.inferential.resampling import resample_note
from rulebench.inferential.upstream.calls import BRANCH_NAMES
from rulebench.inferential.upstream.skipped import SkippedCell, skipped_label

SAMPLES_DICT_KEYS = ("law", "law-cf")
"""Datasets whose upstream branches sample `dict.keys()` (built by CPython 3.10's rule)."""


def stored_prompts_label(config: Mapping[str, JsonValue]) -> str:
    """The wording label of a stored run's config; runs stored before the choice: rulebench.

    Upstream prompts name the substitutions rulebench makes for the run's datasets, and the
    cells of the paper design the clone could not build (left out of the run).
    """
    label = stored_wording(config)
    if config.get("prompts") == "upstream":
        label += _substitutions(config) + skipped_label(stored_skipped(config))
    return label + _resampling(config)


def stored_skipped(config: Mapping[str, JsonValue]) -> list[SkippedCell]:
    """The cells a stored run left out because its clone could not build them."""
    stored = config.get("upstream_skipped")
    if not isinstance(stored, list):
        return []
    return [SkippedCell.model_validate(cell) for cell in stored if isinstance(cell, dict)]


def stored_wording(config: Mapping[str, JsonValue]) -> str:
    """Whose text a stored run was sent, and from which clone, without per-dataset notes."""
    return label_of_record(config.get("prompts"), config.get("upstream_source"))


def _resampling(config: Mapping[str, JsonValue]) -> str:
    """The re-asking a stored run did ("" for one request per item, and older runs)."""
    tasks = config.get("tasks")
    if config.get("resample") != "upstream" or not isinstance(tasks, list):
        return ""
    note = resample_note([task for task in tasks if isinstance(task, str)])
    return "" if note is None else f"; {note}"


def _substitutions(config: Mapping[str, JsonValue]) -> str:
    tasks = config.get("tasks")
    tasks = tasks if isinstance(tasks, list) else []
    notes = [
        f"{task} by upstream's '{BRANCH_NAMES[task]}' branch"
        for task in tasks
        if task in BRANCH_NAMES
    ]
    sampled = [task for task in tasks if task in SAMPLES_DICT_KEYS]
    if sampled:
        notes.append(
            f"{', '.join(sampled)} rule draws by CPython 3.10's random.sample rule "
            "(upstream samples dict keys; items record where)"
        )
    return f"; substituted: {'; '.join(notes)}" if notes else ""
