"""Loading any task by name: our generators, or an official dataset from the user's folder."""

from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.core.rules import TaskData

GENERATED = ("kinship", "stringgame")
OFFICIAL = (
    "clutrr",
    "clutrr-cf",
    "deer",
    "theoremQA",
    "ulogic",
    "ulogic-cf",
    "law",
    "law-cf",
    "salad",
    "salad-cf",
)
DEFAULT_GENERATED_SIZE = 100


def load_task(name: str, n: int | None, seed: int, data_root: Path | None) -> TaskData:
    """Generate (n samples, seeded) or load (the first n, or all) the task `name`."""
    if name in GENERATED:
        size = n or DEFAULT_GENERATED_SIZE
        if name == "kinship":
            from rulebench.inferential.tasks import kinship

            return kinship.generate(size, seed)
        from rulebench.inferential.tasks import stringgame

        return stringgame.generate(size, seed)
    if name not in OFFICIAL:
        raise ConfigError(
            f"unknown inferential task '{name}': generated tasks {', '.join(GENERATED)}; "
            f"official datasets {', '.join(OFFICIAL)}"
        )
    if data_root is None:
        raise ConfigError(
            f"task '{name}' is official RuleBench data: give --data-root, the release's data "
            "folder in your clone (<clone>/dataset, which holds clutrr/, deer/, theoremQA/...)"
        )
    from rulebench.inferential.tasks.official import load_official

    data = load_official(data_root, name)
    if n is not None:
        data = data.model_copy(update={"samples": data.samples[:n]})
    return data


def law_charges(name: str, data_root: Path | None) -> tuple[str, ...]:
    """The charge list the law scorer walks (empty for every other task; law-cf needs none)."""
    if name != "law" or data_root is None:
        return ()
    from rulebench.inferential.tasks.law import charge_list

    return charge_list(data_root)
