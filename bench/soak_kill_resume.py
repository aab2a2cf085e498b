"""Soak: thousands of items against the fault-injecting mock, random SIGKILLs, then resumes.

Runs `rulebench run loadtest` against the mock OpenAI server (chaos faults on a share of
requests), kills the process with SIGKILL at random moments, resumes the run again and again
(killing some resumes too), and finally resumes until the run completes. Then it checks, from
the store and from the server's request log:
  - lost: items without a stored result that finished without error;
  - duplicated: items with more than one stored result;
  - misattributed: stored replies that do not echo their own item's token;
  - re-requested: requests for an item whose result was already stored when that invocation
    started (finished work must never be asked for again).
Prints those figures and exits 1 unless all are zero and the run is "completed".
Usage: python bench/soak_kill_resume.py [-n 3000] [--kills 12] [--fault-rate 0.3]
"""

import argparse
import json
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from rulebench.checks.loadtest import LoadTestItems

PYTHON = sys.executable


class Invocation(NamedTuple):
    """One process that worked on the run: when it ran and what was finished before it."""

    started: float
    ended: float
    finished_before: frozenset[str]
    killed: bool


def start_server(
    log: Path, fault_rate: float, seed: int, latency_ms: float
) -> tuple[subprocess.Popen[str], str]:
    """The mock server in its own process, logging every chat request; returns it and its URL."""
    server = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "rulebench.testing.mock_openai",
            "--latency-ms",
            str(latency_ms),
            "--log",
            str(log),
            "--fault-rate",
            str(fault_rate),
            "--fault-seed",
            str(seed),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def store_rows(store: Path) -> list[tuple[str, str, str, str | None]]:
    """(run id, item id, status, reply) of every stored result, read without writing."""
    if not store.exists():
        return []
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute("SELECT run_id, item_id, status, reply FROM results").fetchall()
    except sqlite3.OperationalError:
        return []  # the store is not created yet
    finally:
        db.close()


def run_status(store: Path) -> tuple[str, str]:
    """The only run's id and stored status."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        run_id, status = db.execute("SELECT id, status FROM runs").fetchone()
    finally:
        db.close()
    return str(run_id), str(status)


def invoke(command: list[str], kill_within_s: float | None, store: Path) -> Invocation:
    """Run one rulebench process; once it has stored a result, SIGKILL it within `kill_within_s`.

    Waiting for its first stored result puts every kill in the middle of real work, not in
    the interpreter's start-up.
    """
    finished = frozenset(i for _, i, status, _ in store_rows(store) if status == "ok")
    started = time.time()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    killed = False
    if kill_within_s is not None:
        while process.poll() is None and len(store_rows(store)) <= len(finished):
            time.sleep(0.02)
        time.sleep(random.uniform(0, kill_within_s))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed = True
    process.wait()
    return Invocation(started, time.time(), finished, killed)


def count_rerequests(log: Path, invocations: list[Invocation], token_of: dict[str, str]) -> int:
    """Requests for items already finished when the invocation that sent them started."""
    finished_tokens = [{token_of[i] for i in inv.finished_before} for inv in invocations]
    count = 0
    for line in log.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        token = str(entry["messages"][-1]["content"]).rsplit(" ", 1)[-1]
        for invocation, tokens in zip(invocations, finished_tokens, strict=True):
            if invocation.started <= entry["time"] <= invocation.ended and token in tokens:
                count += 1
    return count


def main() -> int:
    """Soak, check, print; 0 when nothing was lost, duplicated, misattributed or re-requested."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--limit", type=int, default=3000, help="loadtest items")
    parser.add_argument("--kills", type=int, default=12, help="SIGKILLs at random moments")
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency-ms", type=float, default=20.0, help="server time per reply")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="rulebench-soak-"))
    store, log = workdir / "store.sqlite", workdir / "requests.jsonl"
    server, url = start_server(log, args.fault_rate, args.seed, args.latency_ms)
    backend = ["-m", "openai-api/mock/echo", "--base-url", url, "--store", str(store)]
    retries = ["-M", "max_retries=12", "-M", "initial_backoff_s=0.01", "-M", "max_backoff_s=0.05"]
    first = [PYTHON, "-m", "rulebench", "run", "loadtest", "-n", str(args.limit)]
    first += ["-c", str(args.concurrency), *backend, *retries]
    started = time.monotonic()
    try:
        random.seed(args.seed)
        invocations = [invoke(first, 1.0, store)]
        run_id, _ = run_status(store)
        resume = [PYTHON, "-m", "rulebench", "run", "--resume", run_id, "--store", str(store)]
        for _ in range(args.kills - 1):
            invocations.append(invoke(resume, 0.6, store))
        for _ in range(10):  # finish: resume until every item has a result without error
            invocations.append(invoke(resume, None, store))
            if run_status(store)[1] == "completed":
                break
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    token_of = {item.id: str(item.target) for item in LoadTestItems(args.limit, 0)}
    rows = store_rows(store)
    per_item = Counter(item_id for _, item_id, _, _ in rows)
    ok = {i for _, i, status, _ in rows if status == "ok"}
    figures = {
        "items": args.limit,
        "invocations": len(invocations),
        "killed": sum(inv.killed for inv in invocations),
        "requests": sum(1 for _ in log.open(encoding="utf-8")),
        "faults injected": sum(1 for line in log.open() if json.loads(line)["fault"]),
        "stored results": len(rows),
        "lost": sum(1 for item_id in token_of if item_id not in ok),
        "duplicated": sum(1 for count in per_item.values() if count > 1),
        "misattributed": sum(
            1
            for _, item_id, status, reply in rows
            if status == "ok" and token_of[item_id] not in (reply or "")
        ),
        "re-requested after finishing": count_rerequests(log, invocations, token_of),
        "final status": run_status(store)[1],
        "wall s": round(time.monotonic() - started, 1),
    }
    for name, value in figures.items():
        print(f"{name:>30}: {value}")
    bad = figures["lost"] or figures["duplicated"] or figures["misattributed"]
    bad = bad or figures["re-requested after finishing"] or figures["final status"] != "completed"
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
