"""Loading any task by name: our generators, or an official dataset from the user's folder."""

from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.core.rules import TaskData
from rulebench.inferential.registry import GENERATED, task_definition
from rulebench.inferential.tasks.stringgame.rules.heldout import HeldOutBy

DEFAULT_GENERATED_SIZE = 100
DEFAULT_TASKS: tuple[str, ...] = tuple(GENERATED)
"""What a run evaluates when it names no task: the generated tasks (offline)."""
HELDOUT_TASK = "stringgame"
"""The one task with held-out rules (the IRFT training domain)."""


def check_heldout(heldout: HeldOutBy | None, tasks: tuple[str, ...]) -> None:
    """Refuse a held-out split for a run without StringGame, where it would change nothing.

    Raises:
        ConfigError: naming the option and the tasks.
    """
    if heldout is not None and HELDOUT_TASK not in tasks:
        raise ConfigError(
            f"--heldout-by {heldout} selects StringGame's held-out rules, but the tasks "
            f"({', '.join(tasks)}) do not include stringgame"
        )


def load_task(
    name: str, n: int | None, seed: int, data_root: Path | None, heldout: HeldOutBy | None = None
) -> TaskData:
    """Generate (n samples, seeded) or load (the first n, or all) the task `name`.

    `heldout` restricts StringGame's golden rules to the IRFT held-out split of that kind
    (other tasks have no held-out rules and ignore it).
    """
    definition = task_definition(name)
    if heldout is not None and name == HELDOUT_TASK:
        from rulebench.inferential.tasks.stringgame import generate_heldout

        return generate_heldout(n or DEFAULT_GENERATED_SIZE, seed, heldout)
    if definition.generate is not None:
        return definition.generate(n or DEFAULT_GENERATED_SIZE, seed)
    data_root = definition.data_root or data_root
    if data_root is None:
        raise ConfigError(
            f"task '{name}' is official RuleBench data: give --data-root, the release's data "
            "folder in your clone (<clone>/dataset, which holds clutrr/, deer/, theoremQA/...)"
        )
    from rulebench.inferential.official import load_official

    data = load_official(data_root, name)
    if n is not None:
        data = data.model_copy(update={"samples": data.samples[:n]})
    return data


def judging_context(name: str, data_root: Path | None) -> tuple[str, ...]:
    """What the task's paper scorer needs beside each sample (law's charge list), else ()."""
    definition = task_definition(name)
    root = definition.data_root or data_root
    if definition.judging_context is None or root is None:
        return ()
    return definition.judging_context(root)
