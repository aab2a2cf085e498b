"""Soak: stop a GCG attack and an IRFT tuning run again and again, resume each to its end.

Each round starts the command (or resumes it with the command it printed), waits a random
moment once it works, then sends SIGTERM, SIGINT or SIGKILL. A signal must end the process
with 143 or 130, no traceback, the run stored "interrupted" and a resume command printed;
a SIGKILL leaves the run to resume as it is. Finally it checks the records: the attack's steps
0..N each stored once and the run "completed"; the tuning run "completed" at --max-steps.
Exits 1 on any broken expectation. Needs the embedded model's hf conversion (~20 s, cached).
Usage: python bench/soak_signal_resume.py [--rounds 6] [--seed 0]
"""

import argparse
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from rulebench.attack.stored import stored_states
from rulebench.engine.store.database import Store

ENTRY = "import sys; from rulebench.cli.entry import main; sys.argv[0] = 'rulebench'; main()"
CODES = {signal.SIGTERM: 143, signal.SIGINT: 130}
SENT: Counter[str] = Counter()
"""What each round did, printed at the end: "<command> <signal>" or "... finished first"."""
GCG_STEPS = 12
IRFT_STEPS = 8


def rulebench(*args: str) -> list[str]:
    return [sys.executable, "-c", ENTRY, *args]


def stop_once(args: list[str], rng: random.Random, working: Callable[[], bool]) -> str | None:
    """Run `args`, send a random stop once `working()`; the command it printed, or None."""
    process = subprocess.Popen(
        rulebench(*args),
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    while process.poll() is None and not working():
        time.sleep(0.05)
    time.sleep(rng.uniform(0.0, 3.0))
    how = rng.choice([signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
    if process.poll() is None:
        process.send_signal(how)
    _, stderr = process.communicate(timeout=600)
    command = " ".join(args[:2])
    if process.returncode == 0:
        SENT[f"{command}: finished before the signal"] += 1
        return None
    SENT[f"{command}: {how.name}, exit {process.returncode}"] += 1
    if how == signal.SIGKILL:
        return "killed"
    problems = []
    if process.returncode != CODES[how]:
        problems.append(f"exit {process.returncode} after {how.name}")
    if "Traceback" in stderr:
        problems.append("a traceback")
    if problems:
        raise SystemExit(f"{' '.join(args[:2])}: {', '.join(problems)}\n{stderr}")
    return stderr.split("Resume with: ", 1)[1].split("\n")[0] if "Resume with: " in stderr else ""


def soak_gcg(folder: Path, rounds: int, rng: random.Random) -> list[str]:
    store = folder / "gcg.sqlite"
    first = ["attack", "gcg", "--scenario", "Encryption", "--steps", str(GCG_STEPS)]
    first += ["--search-width", "8", "--topk", "8", "--init", "x x x x", "--heldout", "1"]
    first += ["--device", "cpu", "--dtype", "float32", "--store", str(store)]

    def steps() -> int:
        try:
            with Store(store, readonly=True) as db:
                runs = db.list_runs()
                return len(list(stored_states(db, runs[0].id))) if runs else 0
        except Exception:  # not created yet
            return 0

    args = first
    for _ in range(rounds):
        said = stop_once(args, rng, lambda: steps() >= 2)
        if said is None:
            break
        with Store(store, readonly=True) as db:
            run_id = db.list_runs()[0].id
        args = ["attack", "gcg", "--resume", run_id, "--store", str(store)]
    finished = subprocess.run(rulebench(*args), capture_output=True, text=True, check=False)
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        counted = Counter(result.item_id for result in db.iter_results(run.id))
        found = [state.step for state in stored_states(db, run.id)]
    problems = [f"gcg exit {finished.returncode}"] if finished.returncode else []
    if run.status != "completed":
        problems.append(f"gcg run {run.status}")
    if found != list(range(GCG_STEPS + 1)) or max(counted.values()) != 1:
        problems.append(f"gcg steps {found}")
    return problems


def soak_irft(folder: Path, rounds: int, rng: random.Random) -> list[str]:
    data, output, store = folder / "data", folder / "out", folder / "irft.sqlite"
    subprocess.run(rulebench("train", "data", "-o", str(data), "--limit", "24", "--per-group",
                             "4"), check=True, capture_output=True)  # fmt: skip
    args = ["train", "irft", "--data", str(data), "-o", str(output), "--store", str(store)]
    args += ["--max-steps", str(IRFT_STEPS), "--save-steps", "2", "--batch-size", "2"]
    args += ["--eval-size", "0", "--max-length", "448", "--device", "cpu"]
    for _ in range(rounds):
        said = stop_once(args, rng, lambda: any(output.glob("checkpoints/checkpoint-*")))
        if said is None:
            break
        with Store(store, readonly=True) as db:
            run_id = db.list_runs()[0].id
        args = ["train", "irft", "--resume", run_id, "--store", str(store)]
    finished = subprocess.run(rulebench(*args), capture_output=True, text=True, check=False)
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
    problems = []
    if finished.returncode:
        problems.append(f"irft exit {finished.returncode}: {finished.stderr[-300:]}")
    if run.status != "completed" or run.notes.get("steps") != IRFT_STEPS:
        problems.append(f"irft run {run.status}, steps {run.notes.get('steps')}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    with tempfile.TemporaryDirectory() as tmp:
        problems = soak_gcg(Path(tmp), options.rounds, rng)
        problems += soak_irft(Path(tmp), options.rounds, rng)
    for what, times in sorted(SENT.items()):
        print(f"{times} x {what}")
    print("ok: every record checked" if not problems else "\n".join(problems))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
