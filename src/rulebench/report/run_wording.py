"""A stored run's instruction wording, as every view of one run names it.

The three tasks with a wording choice record it in different places of their task config:
inferential runs as `prompts` and `upstream_source`, scenarios runs in their `protocol`,
judge runs as `prompts` and `upstream`. This reads each back into the one label
(`core.wording.prompts_label`) that reports and `runs show` print.
"""

from rulebench.engine.records import RunRecord


def run_prompts_label(run: RunRecord) -> str | None:
    """E.g. "prompts: upstream (clone at commit 1a2b3c4d)"; None for a task without the choice.

    Runs stored before the choice existed read as rulebench's wording, which they used.
    """
    stored = run.config.get("task_config")
    config = stored if isinstance(stored, dict) else {}
    if run.task == "inferential":
        from rulebench.inferential.upstream.stored import stored_prompts_label

        return stored_prompts_label(config)
    if run.task in ("scenarios", "judge"):
        from rulebench.scenarios.protocol import stored_prompts_label as stored_scenario_label

        # A judge run keeps the protocol's two wording fields at the top of its config.
        return stored_scenario_label(config.get("protocol") if run.task == "scenarios" else config)
    return None
