"""The default run commands on the embedded model, before and after a change, back to back.

Runs `rulebench run inferential` and `rulebench run scenarios` (default sizes unless --limit)
from two source trees: --before (made with `git archive HEAD | tar -x -C /tmp/before`) and
this one, each in a fresh store with the response cache off and the same --concurrency.
Runs alternate (before, after, before, ...) so both sides see the same machine load; the load
average around each run and each side's peak memory are printed with the table. Replies are
compared item by item: at temperature 0 the same item should get the same reply (or error).

Extra configurations join the comparison with --variant LABEL:TREE:ARGS, TREE being `before` or
`after`, e.g. --variant "1 lane:after:-M lanes=1" --variant "2 threads:before:-M n_threads=2
-M n_threads_batch=2".

Usage: python bench/bench_embedded_runs.py --before /tmp/before [--limit 40] [--repeats 1]
       [--commands inferential,scenarios] [-c 8] [--args "-t kinship"] [--variant ...]
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_common import print_table
from rulebench.engine.store.database import Store

AFTER_SRC = Path(__file__).resolve().parents[1] / "src"
RSS_WRAPPER = """
import atexit, resource, runpy, sys
atexit.register(lambda: print("max_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                              file=sys.stderr))
sys.argv = ["rulebench", *sys.argv[1:]]
runpy.run_module("rulebench", run_name="__main__", alter_sys=True)
"""
"""Runs `python -m rulebench` and reports the process's peak memory when it exits."""


@dataclass
class Variant:
    """One side of the comparison: a source tree and extra command-line arguments."""

    label: str
    src: Path
    args: list[str]
    seconds: dict[str, list[float]] = field(default_factory=dict)
    rss_mib: dict[str, list[int]] = field(default_factory=dict)
    loads: dict[str, list[float]] = field(default_factory=dict)
    replies: dict[str, dict[str, str | None]] = field(default_factory=dict)
    """Per command, the last run's reply (or error) per item id."""


def source_dir(tree: str) -> Path:
    """A tree's `src` folder (given the tree's root or its src)."""
    path = Path(tree).expanduser().resolve()
    src = path / "src" if (path / "src" / "rulebench").is_dir() else path
    if not (src / "rulebench").is_dir():
        sys.exit(f"{tree}: no rulebench package under it (expected {path}/src/rulebench)")
    return src


def parse_variant(text: str, before: Path) -> Variant:
    """LABEL:TREE:ARGS, TREE being before or after."""
    label, tree, args = [*text.split(":", 2), "", ""][:3]
    if tree not in ("before", "after") or not label:
        sys.exit(f"--variant {text!r}: expected LABEL:before|after:ARGS")
    return Variant(label, before if tree == "before" else AFTER_SRC, shlex.split(args))


def run_once(variant: Variant, command: str, args: argparse.Namespace, folder: Path) -> None:
    """Run one command of one variant in a fresh store; record its time, load and replies."""
    store = folder / f"{variant.label.replace(' ', '_')}-{command}-{time.monotonic_ns()}.sqlite"
    cli = [sys.executable, "-c", RSS_WRAPPER, "run", command, "--no-cache", "--json"]
    cli += ["--store", str(store), "-c", str(args.concurrency)]
    cli += ["--limit", str(args.limit)] if args.limit else []
    cli += shlex.split(args.args)
    env = {**os.environ, "PYTHONPATH": str(variant.src), "HF_HUB_OFFLINE": "1"}
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run([*cli, *variant.args], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{variant.label} {command} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    run_id = json.loads(done.stdout)["run"]["id"]
    variant.seconds.setdefault(command, []).append(elapsed)
    rss = [line.split()[1] for line in done.stderr.splitlines() if line.startswith("max_rss_kib")]
    variant.rss_mib.setdefault(command, []).append(int(rss[-1]) // 1024 if rss else 0)
    variant.loads.setdefault(command, []).append((load_before + os.getloadavg()[0]) / 2)
    with Store(store) as db:
        variant.replies[command] = {
            r.item_id: r.reply if r.error is None else f"error: {r.error}"
            for r in db.iter_results(run_id)
        }
    print(f"  {command:<12} {variant.label:<14} {elapsed:7.1f} s", file=sys.stderr, flush=True)


def table(variants: list[Variant], commands: list[str]) -> list[tuple[str, ...]]:
    """Rows comparing every variant with the first (before)."""
    base = variants[0]
    rows: list[tuple[str, ...]] = [
        ("command", f"{base.label} s", "variant", "variant s", "speed-up", "identical",
         "load avg", "peak MiB"),
    ]  # fmt: skip
    for command in commands:
        before = statistics.median(base.seconds[command])
        for variant in variants[1:]:
            after = statistics.median(variant.seconds[command])
            same = sum(
                variant.replies[command].get(item) == reply
                for item, reply in base.replies[command].items()
            )
            loads = base.loads[command] + variant.loads[command]
            rows.append((
                command, f"{before:.1f}", variant.label, f"{after:.1f}", f"{before / after:.2f}x",
                f"{same}/{len(base.replies[command])}", f"{statistics.mean(loads):.2f}",
                f"{max(base.rss_mib[command])} / {max(variant.rss_mib[command])}",
            ))  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the unchanged tree (root or src)")
    parser.add_argument("--commands", default="inferential,scenarios")
    parser.add_argument("--limit", type=int, default=0, help="items per run (0: default sizes)")
    parser.add_argument("--repeats", type=int, default=1, help="runs per variant (median kept)")
    parser.add_argument("-c", "--concurrency", type=int, default=8)
    parser.add_argument("--variant", action="append", default=[], help="LABEL:TREE:ARGS")
    parser.add_argument("--args", default="", help="arguments for every run, e.g. '-t kinship'")
    args = parser.parse_args()
    before = source_dir(args.before)
    variants = [Variant("before", before, []), Variant("after", AFTER_SRC, [])]
    variants += [parse_variant(text, before) for text in args.variant]
    commands = [c.strip() for c in args.commands.split(",") if c.strip()]
    print(f"cpus {os.cpu_count()}, load avg at start {os.getloadavg()[0]:.2f}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeats):
            for command in commands:
                for variant in variants:
                    run_once(variant, command, args, Path(tmp))
    limit = f"--limit {args.limit}" if args.limit else "default sizes"
    print(f"embedded model, {limit}, -c {args.concurrency}, median of {args.repeats}")
    print_table(table(variants, commands))


if __name__ == "__main__":
    main()
