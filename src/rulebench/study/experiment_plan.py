"""What `rulebench experiment FILE` says before it runs: the batch's line, folder and plan.

A front end prints these lines; the wording and the choice of folder live here, so the command
line and a script driving experiments say the same.
"""

from pathlib import Path

from rulebench.core.shards import Shard
from rulebench.engine.store.database import Store
from rulebench.engine.store.location import default_store_path
from rulebench.study.batch import How, PlannedRun, preview
from rulebench.study.batch_report import folder_name
from rulebench.study.experiment import Experiment
from rulebench.study.model_batch import DEFAULT_OUTPUT

SAID: dict[How, str] = {
    "reused": "completed earlier, not run again",
    "resumed": "resume",
    "new": "start",
}
"""What running the file now does with a run, as the plan says it."""


def output_folder(loaded: Experiment, given: Path | None, shard: Shard | None) -> Path:
    """-o, else the file's `output`, else rulebench-experiment/<name>/ (one per shard)."""
    if given is not None:
        return given
    if loaded.output is not None:
        return loaded.output
    piece = "" if shard is None else f"-shard-{shard.index}-of-{shard.count}"
    return DEFAULT_OUTPUT / (folder_name(loaded.name) + piece)


def experiment_line(loaded: Experiment, folder: Path, shard: Shard | None) -> str:
    """`experiment NAME: 2 model(s) x 3 task(s) = 6 runs; store ...; output ...`."""
    models = len(dict.fromkeys(run.model for run in loaded.runs))
    tasks = len(dict.fromkeys(run.task for run in loaded.runs))
    of_items = "" if shard is None else f" (shard {shard} of each run's items)"
    return (
        f"experiment {loaded.name}: {models} model(s) x {tasks} task(s) = "
        f"{len(loaded.runs)} runs{of_items}; store {loaded.store or 'default'}; output {folder}"
    )


def batch_title(loaded: Experiment, shard: Shard | None) -> str:
    """The title of the batch's table: the experiment, and the shard it runs."""
    return f"experiment {loaded.name}" + ("" if shard is None else f", shard {shard}")


def plan_lines(planned: list[PlannedRun], store: Path | None) -> tuple[list[str], int]:
    """One line per run saying what running the file now does with it; how many cannot start.

    The store is read, never written; a store not made yet holds no run to reuse.
    """
    path = store or default_store_path()
    actions: list[tuple[How, str | None]]
    if path.exists():
        with Store(path, readonly=True) as db:
            actions = preview(planned, db)
    else:
        actions = [("new" if run.spec else "not started", None) for run in planned]
    lines = []
    for number, (run, (how, run_id)) in enumerate(zip(planned, actions, strict=True), start=1):
        what = SAID.get(how) or f"cannot start: {run.problem}"
        lines.append(
            f"{number}. {run.model} on {run.task}: {what}" + (f" (run {run_id})" if run_id else "")
        )
    return lines, sum(how == "not started" for how, _ in actions)
