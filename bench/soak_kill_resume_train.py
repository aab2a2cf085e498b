"""Soak: a tuning run (`train irft`) SIGKILLed at random moments and resumed until it finishes.

Builds a small IRFT data set, starts `rulebench train irft` on the embedded model, kills it
with SIGKILL once its first checkpoint exists, then resumes it again and again, each resume
killed at a random moment (start-up, training, a checkpoint being written, the adapter being
saved), and finally resumes until it finishes. Then it checks, from the store row, the run
file and the output folder:
  - the run is "completed" at exactly --max-steps: every step in the loss curve once, no
    checkpoint past the end;
  - its invocations are contiguous (each starts where the previous one kept) and their
    train_tokens and wall_s sum to the run's totals;
  - train_tokens equal those of an uninterrupted run of the same steps (unless --no-reference);
  - the adapter loads with peft; no temporary or old folder is left;
  - two more resumes say "finished earlier" and change no file and not the store row.
Prints the figures and exits 1 unless every check holds.
Usage: python bench/soak_kill_resume_train.py [--kills 6] [--max-steps 6] [--kill-within-s 40]
"""

import argparse
import hashlib
import itertools
import json
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PYTHON = sys.executable


def rulebench(*args: str) -> list[str]:
    """The command line of a rulebench process."""
    return [PYTHON, "-m", "rulebench", *args]


def irft_command(data: Path, output: Path, store: Path, steps: int) -> list[str]:
    """A small `train irft` run: batch 1, a checkpoint every step, no evaluation."""
    return rulebench(
        *["train", "irft", "--data", str(data), "-o", str(output), "--store", str(store)],
        *["--max-steps", str(steps), "--save-steps", "1", "--batch-size", "1"],
        *["--eval-size", "0", "--max-length", "320", "--json"],
    )


def invoke(command: list[str], kill_after_s: float | None, wait_for: Path | None = None) -> bool:
    """Run one process; SIGKILL it `kill_after_s` after start (or after `wait_for` exists).

    Returns whether it was killed (it may finish first).
    """
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if kill_after_s is None:
        process.wait()
        return False
    while wait_for is not None and process.poll() is None and not wait_for.exists():
        time.sleep(0.1)
    deadline = time.monotonic() + kill_after_s
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    killed = process.poll() is None
    if killed:
        process.send_signal(signal.SIGKILL)
    process.wait()
    return killed


def stored_row(store: Path) -> tuple[str, str, str | None, dict[str, Any]]:
    """(id, status, ended_at, notes) of the only run in the store."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        run_id, status, ended_at, notes = db.execute(
            "SELECT id, status, ended_at, notes FROM runs"
        ).fetchone()
    finally:
        db.close()
    return str(run_id), str(status), ended_at, json.loads(notes or "{}")


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under `folder`: its content hash and modification time."""
    return {
        str(path.relative_to(folder)): (
            hashlib.sha256(path.read_bytes()).hexdigest(),
            path.stat().st_mtime_ns,
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def adapter_loads(adapter: Path) -> bool:
    """Whether peft loads the adapter onto the base model (as `-M adapter=` does)."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from rulebench.models.hf.loading import transformers_weights

    base_folder, _ = transformers_weights("SmolLM2-135M-Instruct")
    try:
        PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base_folder), adapter)
    except (OSError, ValueError, RuntimeError):
        return False
    return True


def check(output: Path, store: Path, steps: int, reference_tokens: int | None) -> dict[str, Any]:
    """The figures of the finished run, each check as a boolean."""
    _, status, _, notes = stored_row(store)
    run_file = json.loads((output / "irft-run.json").read_text())
    invocations = notes.get("invocations", [])
    curve_steps = [int(step) for step, _ in notes.get("loss_curve", [])]
    contiguous = all(
        later["from_step"] == earlier["to_step"]
        for earlier, later in itertools.pairwise(invocations)
    )
    past_end = [path.name for path in (output / "checkpoints").glob(f"checkpoint-{steps + 1}*")]
    leftovers = [
        path.name for path in output.iterdir() if ".tmp-" in path.name or ".old-" in path.name
    ]
    return {
        "status completed": status == "completed",
        "steps": notes.get("steps"),
        "each step once in the loss curve": curve_steps == list(range(1, steps + 1)),
        "no checkpoint past the end": not past_end,
        "invocations recorded": len(invocations),
        "invocations ended as": [entry["ended_as"] for entry in invocations],
        "invocations contiguous": contiguous
        and bool(invocations)
        and invocations[0]["from_step"] == 0
        and invocations[-1]["to_step"] == steps,
        "train_tokens": notes.get("train_tokens"),
        "tokens = sum of invocations": notes.get("train_tokens")
        == sum(entry["train_tokens"] for entry in invocations),
        "wall_s = sum of invocations": abs(
            notes.get("wall_s", -1) - sum(entry["wall_s"] for entry in invocations)
        )
        < 0.05,
        "reference train_tokens": reference_tokens,
        "tokens = uninterrupted run's": reference_tokens is None
        or notes.get("train_tokens") == reference_tokens,
        "run file notes = store notes": run_file.get("notes") == notes,
        "no leftover temporary folders": not leftovers,
        "adapter loads": adapter_loads(output / "adapter"),
    }


def main() -> int:
    """Soak, check, print; 0 when every check holds."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=6, help="SIGKILLs at random moments")
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--kill-within-s", type=float, default=40.0, help="after a start")
    parser.add_argument("--no-reference", action="store_true", help="skip the uninterrupted run")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    random.seed(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="rulebench-soak-train-"))
    data, output, store = workdir / "data", workdir / "run", workdir / "store.sqlite"
    subprocess.run(rulebench("train", "data", "-o", str(data), "--limit", "32", "--per-group", "4"),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    started = time.monotonic()
    command = irft_command(data, output, store, args.max_steps)
    first_checkpoint = output / "checkpoints" / "checkpoint-1" / "trainer_state.json"
    killed = [invoke(command, random.uniform(0, 5), wait_for=first_checkpoint)]
    run_id = json.loads((output / "irft-run.json").read_text())["run_id"]
    resume = rulebench("train", "irft", "--resume", run_id, "--store", str(store), "--json")
    for _ in range(args.kills - 1):
        killed.append(invoke(resume, random.uniform(0, args.kill_within_s)))
    finishing = 0
    while finishing < 5 and "notes" not in json.loads((output / "irft-run.json").read_text()):
        invoke(resume, None)
        finishing += 1
    row = stored_row(store)
    files = snapshot(output)
    again = [subprocess.run(resume, capture_output=True, text=True) for _ in range(2)]
    reference = None
    if not args.no_reference:
        plain = workdir / "plain"
        plain_command = irft_command(data, plain, workdir / "plain.sqlite", args.max_steps)
        subprocess.run(plain_command, check=True, capture_output=True)
        reference = stored_row(workdir / "plain.sqlite")[3]["train_tokens"]
    figures: dict[str, Any] = {
        "processes": len(killed) + finishing + 2,
        "killed": sum(killed),
        "resumes to finish": finishing,
        **check(output, store, args.max_steps, reference),
        "finished resumes say so": all(
            result.returncode == 0 and "finished earlier" in result.stderr for result in again
        ),
        "finished resumes change nothing": snapshot(output) == files and stored_row(store) == row,
        "wall s": round(time.monotonic() - started, 1),
        "folder": str(workdir),
    }
    for name, value in figures.items():
        print(f"{name:>34}: {value}")
    checks = [value for value in figures.values() if isinstance(value, bool)]
    return 0 if all(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
