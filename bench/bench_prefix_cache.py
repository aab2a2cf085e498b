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
llama-cpp-python's server sends no `timings.prompt_n` (llama.cpp's own llama-server does), so
the evaluated tokens are read from each replica's log: with --verbose it prints
`prompt eval time = ... / N tokens` after every completion.
Usage: python bench/bench_prefix_cache.py [--conversations 8] [--per-group 2]
    [--arms rulebench,random,least]
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
ARMS = ("rulebench", "random", "least")
DEFAULT_ARMS = "rulebench,random"


class Replicas:
    """Llama.cpp server processes, each logging to a file of its own."""

    def __init__(self, count: int, folder: Path, n_ctx: int, threads: int) -> None:
        from rulebench.models.embedded import embedded_gguf_path

        self.urls: list[str] = []
        self.logs: list[Path] = []
        self.processes: list[subprocess.Popen[bytes]] = []
        for index in range(count):
            port = free_port()
            log = folder / f"replica-{index}-{time.monotonic_ns()}.log"
            command = [PYTHON, "-m", "llama_cpp.server", "--model", str(embedded_gguf_path())]
            command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]
            command += ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
            command += ["--cache", "True", "--verbose", "True"]
            with log.open("wb") as sink:
                self.processes.append(
                    subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink)
                )
            self.urls.append(f"http://127.0.0.1:{port}/v1")
            self.logs.append(log)
        for url, process in zip(self.urls, self.processes, strict=True):
            wait_ready(url, process)

    def evaluated(self) -> list[int]:
        """Prompt tokens each replica has evaluated so far, from its log."""
        return [sum(int(n) for n in PROMPT_EVAL.findall(log.read_text())) for log in self.logs]

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
            sys.exit(f"llama_cpp.server exited with {process.returncode}: is its extra installed?")
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
    return replies, sum(r.usage.prompt_tokens for r in results), wall


def measure(name: str, work: tuple[Any, list[Any]], args: Any, folder: Path) -> list[Any]:
    """One row per arm for a workload, each on freshly started replicas."""
    task, items = work
    rows = []
    first: dict[str, Any] | None = None
    for arm in args.arms.split(","):
        replicas = Replicas(2, folder, args.n_ctx, args.threads)
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
    args = parser.parse_args()
    print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {machine()}")
    print(f"load average before: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
    chosen = args.workloads.split(",")
    every = workloads(args.conversations, args.per_group)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in chosen:
            rows += measure(name, every[name], args, Path(tmp))
    print(
        f"2 llama_cpp.server replicas of the embedded model, {args.threads} thread(s) each, "
        f"n_ctx {args.n_ctx}, prompt cache on; max_tokens {args.max_tokens}, "
        f"concurrency {args.concurrency}"
    )
    print_rows(rows)
    print(f"load average after:  {' '.join(f'{n:.2f}' for n in os.getloadavg())}")


if __name__ == "__main__":
    main()
