"""Check that two rulebench versions store the same bytes: every results and cache row.

A change to the engine's per-item path (issue 27) must not change what a run stores. This
script runs a fixed set of runs into a fresh store and dumps every results and cache row,
minus what differs from run to run (run ids, timestamps, latencies), as JSON:
  1. `run loadtest` on the openai-api backend against the mock server in chaos mode (500s,
     400s, replies without choices, replies with a lone surrogate; one retry), cache on,
     twice: the second run is served from the cache where the first succeeded;
  2. `run scenarios` on `scripted/echo`, twice (the second from the cache);
  3. `run smoke` on `scripted/echo`, cache off.
Run `dump` with each version's source on PYTHONPATH, then `compare`:

    git archive <old commit> src | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old/src python bench/check_stored_rows.py dump /tmp/old.json
    PYTHONPATH=src python bench/check_stored_rows.py dump /tmp/new.json
    python bench/check_stored_rows.py compare /tmp/old.json /tmp/new.json

The mock server listens on a fixed port (--port): its URL is part of the model identity,
which keys the cache. `compare` exits 1 and names the first differing rows.
"""

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

VOLATILE_RESULT_COLUMNS = {"run_id", "finished_at", "latency_s"}
VOLATILE_CACHE_COLUMNS = {"run_id", "created_at"}
LATENCY_IN_JSON = re.compile(r'"latency_s":[-+0-9.eE]+')
"""A stored completion's latency, blanked in its JSON text; every other byte is compared."""
CHAOS_KINDS = ("500", "400", "nochoices", "surrogate")


def run_all(store: Path, port: int) -> None:
    """The runs whose rows are compared, into `store`."""
    import rulebench
    from rulebench.testing.mock_server import MockServerConfig, serve_in_thread

    chaos = MockServerConfig(port=port, fault_rate=0.3, fault_seed=7, fault_kinds=CHAOS_KINDS)
    retry_once = {"max_retries": "1", "initial_backoff_s": "0", "max_backoff_s": "0"}
    with serve_in_thread(chaos) as server:
        for _ in range(2):
            rulebench.run(
                "loadtest",
                "openai-api/mock/check",
                store=store,
                limit=400,
                base_url=server.url,
                model_args=retry_once,
                concurrency=16,
            )
    for _ in range(2):
        rulebench.run("scenarios", "scripted/echo", store=store, limit=60)
    rulebench.run("smoke", "scripted/echo", store=store, use_cache=False)


def dump_rows(store: Path) -> dict[str, Any]:
    """Every results and cache row without its volatile columns, run ids as run ordinals."""
    connection = sqlite3.connect(store)
    order = {
        run_id: index
        for index, (run_id,) in enumerate(
            connection.execute("SELECT id FROM runs ORDER BY started_at, rowid")
        )
    }

    def rows(query: str, volatile: set[str]) -> list[dict[str, Any]]:
        found = []
        cursor = connection.execute(query)
        names = [column[0] for column in cursor.description]
        for values in cursor:
            row = dict(zip(names, values, strict=True))
            kept = {k: v for k, v in row.items() if k not in volatile}
            kept["run"] = order.get(row["run_id"])
            if "completion" in kept:
                kept["completion"] = LATENCY_IN_JSON.sub('"latency_s":0', kept["completion"])
            found.append(kept)
        return sorted(found, key=lambda r: json.dumps(r, sort_keys=True))

    dumped = {
        "results": rows("SELECT * FROM results", VOLATILE_RESULT_COLUMNS),
        "cache": rows("SELECT * FROM cache", VOLATILE_CACHE_COLUMNS),
    }
    connection.close()
    return dumped


def compare(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two dumps, one line per difference (at most 10 per table)."""
    problems = []
    for table in ("results", "cache"):
        a, b = old[table], new[table]
        if len(a) != len(b):
            problems.append(f"{table}: {len(a)} rows before, {len(b)} after")
        shown = 0
        for row_a, row_b in zip(a, b, strict=False):
            if row_a != row_b and shown < 10:
                shown += 1
                diff = {k: (v, row_b.get(k)) for k, v in row_a.items() if v != row_b.get(k)}
                problems.append(f"{table}: item {row_a.get('item_id')}: {diff}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    dump = commands.add_parser("dump", help="run the runs and write their rows as JSON")
    dump.add_argument("output", type=Path)
    dump.add_argument("--port", type=int, default=18927)
    check = commands.add_parser("compare", help="compare two dumps")
    check.add_argument("old", type=Path)
    check.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        with tempfile.TemporaryDirectory() as tmp:
            store = Path(tmp) / "rows.sqlite"
            run_all(store, args.port)
            dumped = dump_rows(store)
        args.output.write_text(json.dumps(dumped, indent=1, sort_keys=True))
        counts = {table: len(rows) for table, rows in dumped.items()}
        errors = sum(row["status"] == "error" for row in dumped["results"])
        print(f"{args.output}: {counts}, {errors} results with an error")
        return
    problems = compare(json.loads(args.old.read_text()), json.loads(args.new.read_text()))
    for line in problems:
        print(line)
    if problems:
        sys.exit(1)
    print("identical: every results and cache row matches")


if __name__ == "__main__":
    main()
