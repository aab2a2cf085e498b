"""How `train data` and `train irft` stop on SIGINT or SIGTERM: what is kept, how to go on."""

from contextlib import AbstractContextManager
from pathlib import Path


def data_stopped_by_signal(output: Path) -> "AbstractContextManager[object]":
    """SIGINT or SIGTERM while examples are built: the claimed folder is left empty again."""
    from rulebench.cli.interrupts import same_command, stopped_by_signal
    from rulebench.train.data import MANIFEST
    from rulebench.train.data_options import abandon_build

    def again() -> str | None:
        return None if (output / MANIFEST).is_file() else same_command()

    return stopped_by_signal(lambda: abandon_build(output), again)


def irft_stopped_by_signal(output: Path, store: Path | None) -> "AbstractContextManager[object]":
    """SIGINT or SIGTERM: training saves a checkpoint at the step under way, then stops.

    The resume command names the run by id (read from the output folder's run file); a run
    stopped before its first checkpoint resumes from step 0.
    """
    from rulebench.cli.interrupts import stopped_by_signal
    from rulebench.cli.options import resume_command
    from rulebench.train.irft_notes import stopped_note, stopped_run_id

    def resume() -> str | None:
        run_id = stopped_run_id(output)
        return None if run_id is None else resume_command(run_id, store, "train irft")

    return stopped_by_signal(lambda: stopped_note(output), resume)
