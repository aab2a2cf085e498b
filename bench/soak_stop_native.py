"""Soak: stop runs on local models (llama.cpp, transformers) at random moments, again and again.

Each round starts a run on the embedded model (llama.cpp, or its hf conversion), waits until it
has stored a result or is decoding, waits a random moment more, then sends SIGTERM or SIGINT.
The process must end with 143 or 130 (a segmentation fault is 139 or -11), print no
traceback, and leave the run stored "interrupted" with no result lost: every result the run
stored before the signal is still there, each item once. Exits 1 on any broken expectation.
GCG and IRFT stops are soaked by soak_signal_resume.py.
Usage: python bench/soak_stop_native.py [--stops 20] [--seed 0] [--hf-every 4]
"""

import argparse
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ENTRY = "import sys; from rulebench.cli.entry import main; sys.argv[0] = 'rulebench'; main()"
CODES = {signal.SIGTERM: 143, signal.SIGINT: 130}


def command(store: Path, hf: bool) -> list[str]:
    """A run long enough to be stopped mid-decode: several prompts per lane, 48-token replies."""
    args = ["run", "inferential", "--per-group", "10", "--store", str(store)]
    if hf:
        args += ["-m", "hf/SmolLM2-135M-Instruct", "-M", "dtype=float32"]
    return [sys.executable, "-c", ENTRY, *args]


def stored_results(store: Path) -> int:
    """Results in the store now (0 before it exists)."""
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM results").fetchone()[0])
    except sqlite3.Error:  # created, not yet migrated
        return 0


def stop_once(store: Path, hf: bool, rng: random.Random) -> tuple[str, list[str]]:
    """One round: start, wait for work, signal; what happened and what went wrong."""
    process = subprocess.Popen(
        command(store, hf),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        # A shell's background job ignores SIGINT; the soak sends it on purpose.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    before = stored_results(store)
    while process.poll() is None and stored_results(store) == before:
        time.sleep(0.05)
    time.sleep(rng.uniform(0.0, 2.0))
    how = rng.choice([signal.SIGTERM, signal.SIGINT])
    seen_before_signal = stored_results(store)
    if process.poll() is not None:
        process.communicate()
        return "finished before the signal", []
    process.send_signal(how)
    _, stderr = process.communicate(timeout=600)
    problems = []
    if process.returncode != CODES[how]:
        problems.append(f"exit {process.returncode} after {how.name}")
    if "Traceback" in stderr or "Segmentation" in stderr:
        problems.append("a traceback or crash report on stderr")
    problems += check_store(store, seen_before_signal)
    if problems:
        problems.append(f"stderr tail: {stderr[-600:]}")
    backend = "hf" if hf else "llamacpp"
    return f"{backend}: {how.name}, exit {process.returncode}", problems


def check_store(store: Path, at_least: int) -> list[str]:
    """The newest run is "interrupted", keeps every result stored before the signal, each once."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        run_id, status = db.execute(
            "SELECT id, status FROM runs ORDER BY started_at DESC LIMIT 1"
        ).fetchone()
        items = [row[0] for row in db.execute("SELECT item_id FROM results")]
    problems = []
    if status != "interrupted":
        problems.append(f"run {run_id} stored {status!r}, not 'interrupted'")
    if len(items) < at_least:
        problems.append(f"{at_least - len(items)} stored result(s) lost")
    if len(set(items)) != len(items):
        problems.append("an item stored twice")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stops", type=int, default=20, help="rounds (each one stop)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hf-every", type=int, default=4, help="every Nth round on hf (0: none)")
    options = parser.parse_args()
    rng = random.Random(options.seed)
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for round_number in range(1, options.stops + 1):
            hf = options.hf_every > 0 and round_number % options.hf_every == 0
            store = Path(tmp) / f"round{round_number}.sqlite"
            outcome, problems = stop_once(store, hf, rng)
            outcomes[outcome] += 1
            print(f"round {round_number}: {outcome}" + (" FAILED" if problems else ""), flush=True)
            failures += [f"round {round_number}: {problem}" for problem in problems]
    for what, times in sorted(outcomes.items()):
        print(f"{times} x {what}")
    crashes = sum(times for what, times in outcomes.items() if "exit 139" in what or "-11" in what)
    print(f"crashes: {crashes}")
    print("ok: every stop ended as promised" if not failures else "\n".join(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
