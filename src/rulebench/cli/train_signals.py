"""How `train data` and `train irft` stop on SIGINT or SIGTERM: what is kept, how to go on."""

from contextlib import AbstractContextManager
from pathlib import Path


def data_stopped_by_signal(output: Path) -> "AbstractContextManager[object]":
    """SIGINT or SIGTERM while examples are built: the claimed folder is left empty again.

    A folder without a manifest is one `train data` refuses to replace, so the half-written
    splits are removed (the folder was empty when claimed) and the same command starts over.
    """
    import shutil

    from rulebench.cli.interrupts import same_command, stopped_by_signal
    from rulebench.train.data import MANIFEST

    def what_is_kept() -> str:
        if (output / MANIFEST).is_file():
            return f"The data set in {output} was complete."
        for path in output.iterdir():  # only what the interrupted write had begun
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
        return f"No data set was written ({output} is empty); run the same command again."

    def again() -> str | None:
        return None if (output / MANIFEST).is_file() else same_command()

    return stopped_by_signal(what_is_kept, again)


def irft_stopped_by_signal(output: Path, store: Path | None) -> "AbstractContextManager[object]":
    """SIGINT or SIGTERM: training saves a checkpoint at the step under way, then stops.

    The resume command names the run by id (read from the output folder's run file); a run
    stopped before its first checkpoint resumes from step 0.
    """
    from rulebench.cli.interrupts import stopped_by_signal
    from rulebench.cli.options import resume_command
    from rulebench.train.irft_record import RUN_FILE, read_run_file

    def has_checkpoint() -> bool:
        return any((output / "checkpoints").glob("checkpoint-*"))

    def what_is_kept() -> str:
        if has_checkpoint():
            return f"The run is stored as interrupted; its checkpoints are in {output}."
        if (output / RUN_FILE).is_file():
            return "No checkpoint was saved yet: a resume trains the run again from step 0."
        return f"Nothing was saved in {output}: run the same command again."

    def resume() -> str | None:
        if not (output / RUN_FILE).is_file():
            return None
        return resume_command(str(read_run_file(output)["run_id"]), store, "train irft")

    return stopped_by_signal(what_is_kept, resume)
