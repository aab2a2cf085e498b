"""A stored run's instruction wording, as every view of one run names it.

The three tasks with a wording choice record it in different places of their task config:
inferential runs as `prompts` and `upstream_source`, scenarios runs in their `protocol`,
judge runs as `prompts` and `upstream`. This is the one place that reads each back into the
label (`core.wording.prompts_label`) that reports and `runs show` print, and that says when
runs compared in one report were sent different text.
"""

from collections.abc import Sequence
from typing import NamedTuple

from rulebench.engine.store.records import RunRecord
from rulebench.report.markdown import escape_markdown


class RunWording(NamedTuple):
    """How a run's wording is shown, and what identifies the text it was sent."""

    label: str
    """E.g. "prompts: upstream (clone at commit 1a2b3c4d); substituted: ..."."""
    text: str
    """The label without notes that depend on the run's datasets (upstream substitutions):
    runs whose `text` agrees were sent the same wording wherever they share a cell."""


def run_wording(run: RunRecord) -> RunWording | None:
    """The wording of a stored run; None for a task without the choice.

    Runs stored before the choice existed read as rulebench's wording, which they used.
    """
    stored = run.config.get("task_config")
    config = stored if isinstance(stored, dict) else {}
    if run.task == "inferential":
        from rulebench.inferential.upstream.stored import stored_prompts_label, stored_wording

        return RunWording(stored_prompts_label(config), stored_wording(config))
    if run.task in ("scenarios", "judge"):
        from rulebench.scenarios.protocol import stored_prompts_label as stored_scenario_label

        # A judge run keeps the protocol's two wording fields at the top of its config.
        label = stored_scenario_label(config.get("protocol") if run.task == "scenarios" else config)
        return RunWording(label, label)
    return None


def run_prompts_label(run: RunRecord) -> str | None:
    """E.g. "prompts: upstream (clone at commit 1a2b3c4d)"; None for a task without the choice."""
    wording = run_wording(run)
    return None if wording is None else wording.label


def wording_header(labels: Sequence[str], prompts: Sequence[str]) -> str:
    """The report's wording line: one label when every run agrees, else one per run.

    Args:
        labels: each run's label in the report (its model, or model and run id).
        prompts: each run's wording label, in the same order.
    """
    if not prompts:
        return ""
    if len(set(prompts)) == 1:
        return escape_markdown(prompts[0])
    return "; ".join(
        escape_markdown(f"{label}: {wording}")
        for label, wording in zip(labels, prompts, strict=True)
    )


def mixed_wording_warning(texts: Sequence[str]) -> str | None:
    """Runs sent different text differ partly by wording: a comparison says so.

    Args:
        texts: each run's `RunWording.text`.
    """
    kinds = sorted(set(texts))
    if len(kinds) < 2:
        return None
    return (
        f"the runs compared here were given different prompt text ({' / '.join(kinds)}): "
        "differences between them are partly the wording's"
    )
