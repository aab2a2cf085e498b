"""What a GCG attack leaves in a folder: its suffix, its record and its loss curve.

A study module (not attack/) because the curve is drawn by report/, which attack/ sits beside.
"""

from pathlib import Path

from rulebench.attack.attack_run import AttackResult
from rulebench.attack.stored import stored_states
from rulebench.engine.store.database import Store
from rulebench.report.plots import loss_curve

SUFFIX_FILE = "suffix.txt"
"""The suffix alone, as `run scenarios --suffix FILE` reads it."""
RECORD_FILE = "attack.json"


def attack_folder(store: Store, run_id: str) -> Path:
    """Where an attack's files go unless the caller names a folder: gcg-<run id>/ by the store."""
    return store.path.parent / f"gcg-{run_id}"


def write_attack_outputs(
    result: AttackResult, store: Store, folder: Path | None = None
) -> list[Path]:
    """suffix.txt, attack.json and the loss curve of every stored step; the paths written.

    Args:
        result: the finished (or resumed) attack.
        store: the store holding its steps, whose losses the curve draws.
        folder: where to write (default `attack_folder`); created when missing.
    """
    folder = folder or attack_folder(store, result.run_id)
    losses = [[float(state.step), state.loss] for state in stored_states(store, result.run_id)]
    folder.mkdir(parents=True, exist_ok=True)
    suffix_file = folder / SUFFIX_FILE
    suffix_file.write_text(result.suffix + "\n", encoding="utf-8")
    record = folder / RECORD_FILE
    record.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    config = result.config
    title = f"GCG on {config.model}: {config.scenario}/{config.behavior}"
    labels = ("step", "target loss (this step's instances)")
    return [suffix_file, record, *loss_curve(losses, title, folder / "loss-curve", labels, 10)]
