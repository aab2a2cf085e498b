"""Prompt tokens two llama.cpp server replicas evaluate: rulebench's routing and order vs random.

Starts 2 replicas of the embedded model (`python -m llama_cpp.server`, 127.0.0.1, prompt cache
on, one thread each) and runs the same items through the library (Runner, SQLite store, cache
off) in each arm, the replicas restarted before every arm so none starts warm:
  rulebench  one model over both URLs: a conversation's turns go to the replica that served
             it (`models/openai/prefix_affinity.py`), items grouped by shared prefix
             (`Runner(order="grouped")`, `engine/dispatch_order.py`);
  random     the items shuffled, each request sent to a replica drawn at random;
  least      (with --arms) as before prefix affinity: least-loaded replica
             (`-M prefix_affinity=false`), the task's order.
The workloads: the first multi-turn RuLES conversations (`scenarios`, whose every turn resends
the history) and a slice of the inferential grid with 2-shot demonstrations (items of one
cell share their instructions and demonstrations).

Printed per workload and arm: the prompt tokens sent, the prompt tokens the servers evaluated,
the saving against the random arm, wall seconds, and how many replies match the first arm's.
With --llama-server PATH the replicas are llama.cpp's own server (--slots slots each): the
evaluated tokens are its /metrics counter `llamacpp:prompt_tokens_total`, and the rulebench
arm's run note gives what the replies' `timings` said (`models/openai/server_cache.py`).
Without it, llama-cpp-python's server sends no `timings`, so the evaluated tokens are read
from each replica's log: with --verbose it prints `prompt eval time = ... / N tokens`.
Usage: python bench/bench_prefix_cache.py [--conversations 8] [--per-group 2]
    [--arms rulebench,random,least] [--llama-server PATH --slots 2]
"""

import argparse
import asyncio
import datetime
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import JsonValue

from bench_common import free_port, machine

PYTHON = sys.executable
PROMPT_EVAL = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")
PROMPT_TOTAL = re.compile(r"^llamacpp:prompt_tokens_total\s+([\d.e+]+)", re.MULTILINE)
ARMS = ("rulebench", "random", "least")
DEFAULT_ARMS = "rulebench,random"


def server_command(args: Any, port: int) -> list[str]:
    """One replica: llama-server with --slots slots, else llama-cpp-python's server."""
    from rulebench.models.embedded import embedded_gguf_path

    gguf, threads = str(embedded_gguf_path()), str(args.threads)
    if args.llama_server:
        context = str(args.n_ctx * args.slots)
        return [
            args.llama_server, "-m", gguf, "--host", "127.0.0.1", "--port", str(port),
            "-np", str(args.slots), "-c", context, "-t", threads, "-tb", threads, "--metrics",
        ]  # fmt: skip
    return [
        PYTHON, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1", "--port",
        str(port), "--n_ctx", str(args.n_ctx), "--n_threads", threads, "--n_threads_batch",
        threads, "--cache", "True", "--verbose", "True",
    ]  # fmt: skip


class Replicas:
    """Llama.cpp server processes, each logging to a file of its own."""

    def __init__(self, count: int, folder: Path, args: Any) -> None:
        self.urls: list[str] = []
        self.logs: list[Path] = []
        self.processes: list[subprocess.Popen[bytes]] = []
        self._metrics = bool(args.llama_server)
        for index in range(count):
            port = free_port()
            log = folder / f"replica-{index}-{time.monotonic_ns()}.log"
            command = server_command(args, port)
            with log.open("wb") as sink:
                self.processes.append(
                    subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink)
                )
            self.urls.append(f"http://127.0.0.1:{port}/v1")
            self.logs.append(log)
        for url, process in zip(self.urls, self.processes, strict=True):
            wait_ready(url, process)

    def evaluated(self) -> list[int]:
        """Prompt tokens each replica has evaluated so far: its /metrics, else its log."""
        if not self._metrics:
            return [sum(int(n) for n in PROMPT_EVAL.findall(log.read_text())) for log in self.logs]
        counts = []
        for url in self.urls:
            with urllib.request.urlopen(url.removesuffix("/v1") + "/metrics", timeout=10) as page:
                found = PROMPT_TOTAL.search(page.read().decode())
            counts.append(int(float(found.group(1))) if found else 0)
        return counts

    def stop(self) -> None:
        """End the processes this bench started."""
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(timeout=30)


def wait_ready(url: str, process: subprocess.Popen[bytes], timeout_s: float = 180.0) -> None:
    """Return once the server answers /models; exit if it dies or never answers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"the server exited with {process.returncode}: is it installed?")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    sys.exit(f"llama_cpp.server at {url} did not answer within {timeout_s:.0f} s")


class ListedTask:
    """A task's chosen items, in a given order, solved as the task solves them."""

    def __init__(self, task: Any, items: Sequence[Any]) -> None:
        self.name = task.name
        self._task = task
        self._items = list(items)

    def config(self) -> dict[str, Any]:
        """The wrapped task's config."""
        return dict(self._task.config())

    def items(self) -> list[Any]:
        """The chosen items."""
        return self._items

    async def solve(self, item: Any, session: Any) -> Any:
        """Solve as the wrapped task does."""
        return await self._task.solve(item, session)


class RandomReplica:
    """A model over single-URL models, each request sent to one of them drawn at random."""

    def __init__(self, models: Sequence[Any], seed: int) -> None:
        self._models = list(models)
        self._rng = random.Random(seed)

    @property
    def info(self) -> Any:
        """The first replica's info (the response cache is off)."""
        return self._models[0].info

    async def generate(self, messages: Any, config: Any) -> Any:
        """Reply through a replica drawn at random."""
        return await self._rng.choice(self._models).generate(messages, config)

    async def aclose(self) -> None:
        """Close every replica's connections."""
        for model in self._models:
            await model.aclose()


def multi_call_ids(task: Any) -> set[str]:
    """The scenarios items whose play calls the model more than once (the games).

    Found by a dry run on `scripted/echo`: most RuLES cases prefill their history and ask for
    one reply.
    """
    from rulebench.engine.runner import Runner, RunSpec
    from rulebench.engine.store.database import Store
    from rulebench.models.registry import create_model

    spec = RunSpec(task=task.name, model="scripted/echo", use_cache=False)
    model = create_model(spec.model)
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "dry.sqlite") as store:
        report = asyncio.run(Runner(store).run(task, model, spec))
        return {r.item_id for r in store.iter_results(report.run.id) if r.calls > 1}


def workloads(conversations: int, per_group: int) -> dict[str, tuple[Any, list[Any]]]:
    """The items of each workload: multi-turn conversations, and a 2-shot grid slice."""
    from rulebench.engine.catalog import build_task

    scenarios = build_task("scenarios", None)
    several = multi_call_ids(scenarios)
    multi_turn = [item for item in scenarios.items() if item.id in several]
    grid: dict[str, JsonValue] = {"shots": 2, "quantities": ["few"], "forms": ["nl", "fol"]}
    config: dict[str, JsonValue] = {
        "tasks": ["kinship", "stringgame"],
        "per_group": per_group,
        "grid": grid,
    }
    inferential = build_task("inferential", config)
    return {
        "scenarios": (scenarios, multi_turn[:conversations]),
        "inferential": (inferential, list(inferential.items())),
    }


def build_model(arm: str, urls: list[str]) -> Any:
    """The model of an arm: one over both URLs, or random draws among single-URL ones."""
    from rulebench.models.base import BackendOptions
    from rulebench.models.registry import create_model

    def model(base_url: str) -> Any:
        args = {"timeout_s": "600", "prefix_affinity": str(arm == "rulebench").lower()}
        return create_model("openai-api/llama/bench", BackendOptions(args=args, base_url=base_url))

    if arm != "random":
        return model(",".join(urls))
    singles = [model(url) for url in urls]
    return RandomReplica(singles, seed=0)


async def run_arm(arm: str, task: Any, items: list[Any], urls: list[str], args: Any) -> Any:
    """Run the items in one arm; the replies by item id, prompt tokens sent, wall seconds."""
    from rulebench.core.messages import GenerateConfig
    from rulebench.engine.runner import Runner, RunSpec
    from rulebench.engine.store.database import Store

    if arm == "random":
        items = random.Random(1).sample(items, len(items))
    spec = RunSpec(
        task=task.name,
        model="openai-api/llama/bench",
        base_url=",".join(urls),
        generate=GenerateConfig(max_tokens=args.max_tokens),
        concurrency=args.concurrency,
        use_cache=False,
    )
    model = build_model(arm, urls)
    order: Literal["given", "grouped"] = "grouped" if arm == "rulebench" else "given"
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
        start = time.perf_counter()
        report = await Runner(store, order=order).run(ListedTask(task, items), model, spec)
        wall = time.perf_counter() - start
        await model.aclose()
        results = list(store.iter_results(report.run.id))
    errors = [r.error for r in results if r.error]
    if errors:
        sys.exit(f"{arm}: {len(errors)} items failed, first: {errors[0]}")
    replies = {r.item_id: r.messages for r in results}
    notes = report.run.notes.get("backend_notes")
    listed = [str(note) for note in notes] if isinstance(notes, list) else []
    cache_note = next((note for note in listed if note.startswith("server prompt cache")), "")
    if cache_note:
        print(f"  {arm}: {cache_note}")
    return replies, sum(r.usage.prompt_tokens for r in results), wall


def measure(name: str, work: tuple[Any, list[Any]], args: Any, folder: Path) -> list[Any]:
    """One row per arm for a workload, each on freshly started replicas."""
    task, items = work
    rows = []
    first: dict[str, Any] | None = None
    for arm in args.arms.split(","):
        replicas = Replicas(2, folder, args)
        try:
            replies, sent, wall = asyncio.run(run_arm(arm, task, items, replicas.urls, args))
            evaluated = replicas.evaluated()
        finally:
            replicas.stop()
        first = first or replies
        same = sum(replies[key] == value for key, value in first.items())
        rows.append((name, arm, len(items), sent, evaluated, wall, same))
    return rows


def print_rows(rows: Iterable[tuple[Any, ...]]) -> None:
    """The table: tokens sent and evaluated, the saving against the random arm, wall time."""
    rows = list(rows)
    baseline = {name: sum(ev) for name, arm, _, _, ev, _, _ in rows if arm == "random"}
    print("| workload | arm | items | prompt tokens sent | evaluated (per replica) | "
          "saving vs random | wall s | replies as first arm |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, arm, count, sent, evaluated, wall, same in rows:
        total = sum(evaluated)
        base = baseline.get(name)
        saving = f"{100 * (1 - total / base):.1f}%" if base else "-"
        split = " / ".join(f"{n:,}" for n in evaluated)
        print(
            f"| {name} | {arm} | {count} | {sent:,} | {total:,} ({split}) | {saving} | "
            f"{wall:.1f} | {same}/{count} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--conversations", type=int, default=8, help="multi-turn RuLES items")
    parser.add_argument("--per-group", type=int, default=2, help="inferential items per cell")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--n-ctx", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=1, help="threads of each replica")
    parser.add_argument("--arms", default=DEFAULT_ARMS, help=f"of {', '.join(ARMS)}")
    parser.add_argument("--workloads", default="scenarios,inferential")
    parser.add_argument("--llama-server", default="", help="llama.cpp's llama-server binary")
    parser.add_argument("--slots", type=int, default=2, help="slots of each llama-server")
    args = parser.parse_args()
    print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {machine()}")
    print(f"load average before: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
    chosen = args.workloads.split(",")
    every = workloads(args.conversations, args.per_group)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in chosen:
            rows += measure(name, every[name], args, Path(tmp))
    server = (
        f"llama-server replicas ({args.slots} slots of n_ctx {args.n_ctx})"
        if args.llama_server
        else f"llama_cpp.server replicas (n_ctx {args.n_ctx}, prompt cache on)"
    )
    print(
        f"2 {server} of the embedded model, {args.threads} thread(s) each; max_tokens "
        f"{args.max_tokens}, concurrency {args.concurrency}"
    )
    print_rows(rows)
    print(f"load average after:  {' '.join(f'{n:.2f}' for n in os.getloadavg())}")


if __name__ == "__main__":
    main()
