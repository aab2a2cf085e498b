"""Served throughput: rulebench's defaults, its best -c, and a bare aiohttp client, one server.

Starts llama.cpp's own server (`llama-server`, with --parallel slots and continuous batching)
on the embedded SmolLM2 model, then sends the same RuleBench items (generated kinship, one
setting) three ways and prints items/s and generated tokens/s of each:
  1. rulebench with its defaults (no -c: the concurrency found from the server's answers,
     `models.adaptive_limit`, starting at the task's 8; cache off), and what it found;
  2. rulebench at each -c of the sweep, the best one named;
  3. a bare aiohttp client at each concurrency of the sweep (no store, no retries), the best;
  4. inspect_ai's OpenAI-compatible provider at the best bare concurrency, where installed
     (lm-eval likewise when installed; each absent one is named in one line).
Then the ratios to the best bare client, the date, the machine and its load before and after.

`llama-server` builds from the llama.cpp that llama-cpp-python's source distribution vendors
(`pip download --no-binary :all: --no-deps llama-cpp-python`, then in vendor/llama.cpp:
`cmake -B build && cmake --build build --target llama-server`); point --llama-server at it.
Without it the bench says so in one line and uses llama-cpp-python's own server, which
answers one request at a time (no parallel slots: every concurrency then measures the same).

Usage: python bench/bench_served.py --llama-server PATH [-n 48] [--slots 4] [--sweep 1,2,4,8,16]
       [--repeats 3]
"""

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import NamedTuple

import aiohttp
from pydantic import JsonValue

from bench_common import free_port, machine

MODEL_NAME = "smollm2"
"""The name the server is asked for; the model spec is `openai-api/llamacpp/smollm2`."""


class Figures(NamedTuple):
    """One way of sending the items: how long they took and what the model generated."""

    label: str
    concurrency: str
    """As given, or for the defaults what the run found (`adaptive: 8 at the start, ...`)."""
    wall_s: float
    items: int
    generated_tokens: int

    @property
    def items_per_s(self) -> float:
        """Items finished per wall second."""
        return self.items / self.wall_s

    @property
    def tokens_per_s(self) -> float:
        """Generated tokens per wall second."""
        return self.generated_tokens / self.wall_s


def start_server(args: argparse.Namespace, gguf: Path, port: int) -> subprocess.Popen[bytes]:
    """llama-server with `--slots` parallel slots, else llama-cpp-python's server (one slot)."""
    context = args.slot_context * args.slots
    if args.llama_server and Path(args.llama_server).exists():
        command = [
            args.llama_server, "-m", str(gguf), "--host", "127.0.0.1", "--port", str(port),
            "-np", str(args.slots), "-c", str(context), "-t", str(args.threads),
            "--alias", MODEL_NAME,
        ]  # fmt: skip
    else:
        print(
            f"llama-server not found ({args.llama_server or 'no --llama-server given'}): "
            "using llama-cpp-python's server, one request at a time"
        )
        command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host",
            "127.0.0.1", "--port", str(port), "--n_ctx", str(args.slot_context),
            "--n_threads", str(args.threads), "--model_alias", MODEL_NAME,
        ]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def wait_until_ready(base_url: str, server: subprocess.Popen[bytes]) -> None:
    """Poll /models until the server answers (it loads the model first)."""
    async with aiohttp.ClientSession() as session:
        for _ in range(600):
            if server.poll() is not None:
                raise SystemExit(f"the server exited with status {server.returncode}")
            try:
                async with session.get(f"{base_url}/models") as reply:
                    if reply.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise SystemExit("the server did not answer within 120 s")


def the_items(count: int) -> list[list[dict[str, str]]]:
    """The items' messages, as both clients send them: kinship, few rules, direct answers."""
    from rulebench.engine.catalog import build_task

    task = build_task("inferential", {"tasks": ["kinship"], "per_group": count})
    return [
        [{"role": m.role, "content": m.content} for m in item.messages]
        for item in list(task.items())[:count]
    ]


async def run_rulebench(
    base_url: str, count: int, max_tokens: int, concurrency: int | None
) -> Figures:
    """The items through the library (make_spec, evaluate, a SQLite store), cache off."""
    from rulebench.engine.evaluation import evaluate
    from rulebench.engine.run_settings import RunSettings
    from rulebench.engine.run_specs import make_spec
    from rulebench.engine.store.database import Store

    settings = RunSettings(
        base_url=base_url, max_tokens=max_tokens, concurrency=concurrency, use_cache=False,
        limit=count, model_args={"max_connections": "64"},
    )  # fmt: skip
    config: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": count}
    spec = make_spec("inferential", f"openai-api/llamacpp/{MODEL_NAME}", config, settings)
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
        started = time.perf_counter()
        report = await evaluate(spec, store)
        wall = time.perf_counter() - started
        results = list(store.iter_results(report.run.id))
    finished = [r for r in results if r.error is None]
    generated = sum(r.usage.completion_tokens for r in finished)
    if concurrency is None:
        found = found_concurrency(str(report.run.notes.get("concurrency", spec.concurrency)))
        return Figures("rulebench, defaults", found, wall, len(finished), generated)
    return Figures("rulebench", str(concurrency), wall, len(finished), generated)


def found_concurrency(note: str) -> str:
    """`auto 8->16 (highest 32)` from the run note `adaptive: 8 at the start, 16 at the end ...`."""
    found = re.match(r"adaptive: (\d+) at the start, (\d+) at the end \(highest (\d+)", note)
    return f"auto {found[1]}->{found[2]} (highest {found[3]})" if found else note


async def run_bare(base_url: str, items: Sequence[list[dict[str, str]]], max_tokens: int,
                   concurrency: int) -> Figures:  # fmt: skip
    """The same messages posted by plain aiohttp at `concurrency` in flight."""
    limit = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    generated = 0

    async def ask(session: aiohttp.ClientSession, messages: list[dict[str, str]]) -> None:
        nonlocal generated
        body = {"model": MODEL_NAME, "messages": messages, "max_tokens": max_tokens,
                "temperature": 0.0, "seed": 0}  # fmt: skip
        async with limit, session.post(f"{base_url}/chat/completions", json=body) as reply:
            reply.raise_for_status()
            generated += int((await reply.json())["usage"]["completion_tokens"])

    async with aiohttp.ClientSession(connector=connector) as session:
        started = time.perf_counter()
        await asyncio.gather(*(ask(session, messages) for messages in items))
        wall = time.perf_counter() - started
    return Figures("bare aiohttp", str(concurrency), wall, len(items), generated)


async def run_inspect(base_url: str, items: Sequence[list[dict[str, str]]], max_tokens: int,
                      concurrency: int) -> Figures:  # fmt: skip
    """The same messages through inspect_ai's openai-api provider (generate only, no scorer)."""
    from inspect_ai import Task, eval_async
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser
    from inspect_ai.solver import generate

    def sample(messages: list[dict[str, str]]) -> Sample:
        kinds = {"system": ChatMessageSystem, "user": ChatMessageUser}
        return Sample(input=[kinds[m["role"]](content=m["content"]) for m in messages])

    os.environ.update(LLAMACPP_API_KEY="none", LLAMACPP_BASE_URL=base_url, INSPECT_DISPLAY="none")
    task = Task(dataset=[sample(messages) for messages in items], solver=generate())
    with tempfile.TemporaryDirectory() as logs:
        started = time.perf_counter()
        done = await eval_async(
            task, model=f"openai-api/llamacpp/{MODEL_NAME}", max_connections=concurrency,
            max_tokens=max_tokens, temperature=0.0, seed=0, log_dir=logs,
        )  # fmt: skip
        wall = time.perf_counter() - started
    usage = done[0].stats.model_usage
    generated = sum(u.output_tokens for u in usage.values())
    return Figures("inspect_ai", str(concurrency), wall, len(items), generated)


def machine_line() -> str:
    """The date, the machine and the load average now."""
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {machine()}; load average {load}"


def print_figures(rows: list[Figures], best_bare: Figures) -> None:
    """The table, each row against the best bare client."""
    print("| client | concurrency | items | wall s | items/s | gen tok/s | vs best bare |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        ratio = row.items_per_s / best_bare.items_per_s
        print(
            f"| {row.label} | {row.concurrency} | {row.items} | {row.wall_s:.2f} | "
            f"{row.items_per_s:.2f} | {row.tokens_per_s:.1f} | {ratio:.2f}x |"
        )


def peers_line() -> str:
    """Which peer harnesses are installed here: inspect_ai is run; lm-eval, when present, not."""
    found = [name for name in ("lm_eval", "inspect_ai") if _importable(name)]
    missing = [name for name in ("lm_eval", "inspect_ai") if name not in found]
    shown = ", ".join(missing) or "none"
    line = f"peers installed: {', '.join(found) or 'none'} (skipped, not installed: {shown})"
    if "inspect_ai" in found and not _importable("openai"):
        line += "; inspect_ai's openai-api provider needs `pip install openai`: skipped"
    return line


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


async def bench(args: argparse.Namespace, base_url: str) -> None:
    """Every way of sending the items (each the median of --repeats runs), then the table."""
    sweep = [int(c) for c in args.sweep.split(",")]
    items = the_items(args.limit)
    # Warm-up with every item: the server keeps each slot's prompt, so every measured run
    # below finds the same cache state (otherwise the first run alone pays for it); and one
    # library run, so no measured run pays for the first imports.
    await run_bare(base_url, items, args.max_tokens, args.slots)
    await run_rulebench(base_url, args.slots, args.max_tokens, args.slots)

    async def median(run: Callable[[], Awaitable[Figures]]) -> Figures:
        tries = sorted([await run() for _ in range(args.repeats)], key=lambda f: f.wall_s)
        found = tries[len(tries) // 2]
        shown = ", ".join(f"{f.items_per_s:.2f}" for f in tries)
        print(f"  {found.label} ({found.concurrency}): {shown} items/s", flush=True)
        return found

    n, limit = args.limit, args.max_tokens
    rows = [await median(partial(run_rulebench, base_url, n, limit, None))]
    for c in sweep:
        rows.append(await median(partial(run_rulebench, base_url, n, limit, c)))
    for c in sweep:
        rows.append(await median(partial(run_bare, base_url, items, limit, c)))
    best_bare = max((r for r in rows if r.label == "bare aiohttp"), key=lambda r: r.items_per_s)
    if _importable("inspect_ai") and _importable("openai") and not args.skip_peers:
        peer = partial(run_inspect, base_url, items, limit, int(best_bare.concurrency))
        rows.append(await median(peer))
    best_ours = max((r for r in rows if r.label == "rulebench"), key=lambda r: r.items_per_s)
    print_figures(rows, best_bare)
    print(
        f"defaults: {rows[0].items_per_s / best_bare.items_per_s:.2f}x the best bare client "
        f"(c={best_bare.concurrency}), with the concurrency it found: {rows[0].concurrency}; "
        f"rulebench's best -c {best_ours.concurrency}: "
        f"{best_ours.items_per_s / best_bare.items_per_s:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", "--limit", type=int, default=48, help="kinship items sent")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--slots", type=int, default=4, help="the server's parallel slots")
    parser.add_argument("--slot-context", type=int, default=2048, help="context per slot")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--sweep", default="1,2,4,8,16", help="concurrencies tried")
    parser.add_argument("--repeats", type=int, default=1, help="runs per row (the median)")
    parser.add_argument("--llama-server", default=shutil.which("llama-server") or "")
    parser.add_argument("--skip-peers", action="store_true", help="no inspect_ai run")
    args = parser.parse_args()

    from rulebench.models.embedded import embedded_gguf_path

    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    print(machine_line())
    print(peers_line())
    server = start_server(args, embedded_gguf_path(), port)
    try:
        asyncio.run(wait_until_ready(base_url, server))
        print(
            f"{args.limit} kinship items, max_tokens {args.max_tokens}, {args.slots} slots of "
            f"{args.slot_context} tokens, {args.threads} threads"
        )
        asyncio.run(bench(args, base_url))
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"after: {machine_line()}")


if __name__ == "__main__":
    main()
