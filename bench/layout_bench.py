"""Section (e) of bench_local.py: llamacpp layouts against llama-batched-bench, K in flight.

For each K of --ks, K distinct prompts (about --npp tokens, each asking to count on from its
own number, so replies run to max_tokens) go to the llamacpp backend together, prefix reuse
off, as `Runner` sends them with K items in flight: with the layout the backend picks for K
(`layout.choose_layout`) and with each --layouts setting. llama-batched-bench then does the
same work in one context of K sequences (npp and ntg as ours measured) with as many threads.
Figures: all tokens (prompts and replies) per second over the whole job, as the peer counts.

Then real RuleBench prompts: kinship all-rule items in the shared layout (~1,400 tokens, the
rule list first in every prompt) sent K at a time with prefix reuse on, against the peer on
the same token counts (it cannot know they share a beginning).
"""

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from batched_bench_peer import BatchedFigure, BatchedWork, absent_line, run_batched_bench
from bench_common import machine, print_table
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.registry import EMBEDDED_MODEL_NAME


def add_layout_arguments(parser: argparse.ArgumentParser) -> None:
    """Section (e)'s options."""
    parser.add_argument("--batched-bench", type=Path, default=None, help="llama-batched-bench")
    parser.add_argument("--ks", default="1,4,8,16", help="prompts in flight, for (e)")
    parser.add_argument(
        "--layouts",
        default="lanes=2,n_threads=1;lanes=1,n_threads=2,n_threads_batch=2",
        help="fixed -M settings compared in (e), ';'-separated (n_seq_max is set per K)",
    )
    parser.add_argument("--npp", type=int, default=128, help="prompt tokens per sequence (e)")
    parser.add_argument("--ntg", type=int, default=64, help="reply tokens per sequence (e)")
    parser.add_argument("--real-items", type=int, default=16, help="kinship items (e); 0: none")
    parser.add_argument("--layout-repeats", type=int, default=3, help="runs per row (e): median")


def counting_prompts(count: int, tokens: int) -> list[list[Message]]:
    """Distinct prompts of about `tokens` tokens, each asking for a long list of numbers.

    The chat template and the question take ~50 tokens; a note of ~10 tokens per sentence
    makes up the rest. The embedded model writes such lists to max_tokens.
    """
    prompts = []
    for i in range(count):
        notes = " ".join(f"Note {j} for reader {i}: the tide is high." for j in range(tokens // 10))
        ask = f"Write the numbers from {100 + 37 * i} to {600 + 37 * i}, separated by commas."
        prompts.append([Message(role="user", content=f"Reader {i}: {notes} {ask}")])
    return prompts


async def _send(
    settings: dict[str, str],
    prompts: Sequence[list[Message]],
    shape: tuple[int, int, int],
) -> tuple[float, list[Completion], str]:
    """Median wall seconds of sending the prompts to a fresh engine, its replies, its layout.

    `shape`: max_tokens, prompts in flight (sent that many at a time, as the runner sends
    them) and repeats. The prefix cache stays between repeats: prefix reuse off, it holds none.
    """
    max_tokens, in_flight, repeats = shape
    from rulebench.models.llamacpp.backend import LlamaCppModel
    from rulebench.models.llamacpp.engine import free_llama_cache

    model = LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args=settings))
    model.expect_in_flight(in_flight)
    await model.generate([Message(role="user", content="Hi")], GenerateConfig(max_tokens=2))
    config = GenerateConfig(max_tokens=max_tokens)
    room = asyncio.Semaphore(in_flight)

    async def send(prompt: list[Message]) -> Completion:
        async with room:
            return await model.generate(prompt, config)

    walls = []
    for _ in range(repeats):
        started = time.perf_counter()
        replies = await asyncio.gather(*(send(p) for p in prompts))
        walls.append(time.perf_counter() - started)
    layout = "; ".join(model.run_notes)
    free_llama_cache()
    return statistics.median(walls), list(replies), layout


def _tokens(replies: Sequence[Completion]) -> tuple[int, int]:
    return (sum(r.usage.prompt_tokens for r in replies),
            sum(r.usage.completion_tokens for r in replies))  # fmt: skip


def _peer(
    args: argparse.Namespace, npp: int, ntg: int, k: int, repeats: int
) -> list[BatchedFigure]:
    """The peer on the same work: attention as ours (flash off), then with its own default."""
    from rulebench.models.embedded import embedded_gguf_path

    if args.batched_bench is None:
        return []
    figures = []
    for flash in ("off", "auto"):
        work = BatchedWork(npp, ntg, (k,), os.cpu_count() or 1, flash)
        tries = []
        for _ in range(repeats):
            rows, command = run_batched_bench(args.batched_bench, embedded_gguf_path(), work)
            tries += rows[:1]
        print(f"  peer: {command} (x{repeats})")
        figures.append(sorted(tries, key=lambda f: f.seconds)[len(tries) // 2])
    return figures


def _row(
    k: int, name: str, timed: tuple[float, Sequence[Completion]], peers: list[BatchedFigure]
) -> list[str]:
    wall, replies = timed
    prompt, generated = _tokens(replies)
    rate = (prompt + generated) / wall
    ratios = " / ".join(f"{rate / peer.tokens_per_s:.2f}x" for peer in peers) or "-"
    return [str(k), name, f"{wall:.1f} s", f"{rate:.1f} tok/s", ratios]


async def bench_k(args: argparse.Namespace, k: int) -> list[tuple[str, ...]]:
    """Rows for K prompts in flight: the chosen layout, each fixed one, the peer."""
    prompts = counting_prompts(k, max(0, args.npp - 50))
    no_reuse = {"prefix_reuse": "false"}
    wall, chosen, layout = await _send(no_reuse, prompts, (args.ntg, k, args.layout_repeats))
    texts = [r.text for r in chosen]
    runs = [(f"rulebench, picked: {layout.removeprefix('llamacpp: ')}", wall, chosen)]
    for setting in filter(None, args.layouts.split(";")):
        pairs = dict(pair.split("=", 1) for pair in setting.split(","))
        lanes = int(pairs.get("lanes", "1"))
        pairs |= no_reuse | {"n_seq_max": str(-(-k // lanes))}
        wall, replies, _ = await _send(pairs, prompts, (args.ntg, k, args.layout_repeats))
        runs.append((f"rulebench, {setting}", wall, replies))
    prompt, generated = _tokens(chosen)
    peers = _peer(args, round(prompt / k), max(1, round(generated / k)), k, args.layout_repeats)
    rows = []
    for name, wall, replies in runs:
        same = "replies = picked" if [r.text for r in replies] == texts else "replies differ"
        rows.append((*_row(k, name, (wall, replies), peers), same))
    for peer, flash in zip(peers, ("off", "auto"), strict=False):
        name = f"llama-batched-bench -fa {flash} (npp {peer.npp}, ntg {peer.ntg})"
        speed = f"{peer.tokens_per_s:.1f} tok/s"
        rows.append((str(k), name, f"{peer.seconds:.1f} s", speed, "", ""))
    return rows


def kinship_prompts(count: int) -> list[list[Message]]:
    """Real RuleBench prompts: kinship all-rule items, the rule list first in each."""
    from rulebench.inferential.settings import Grid
    from rulebench.inferential.task import InferentialTask

    grid = Grid(quantities=("all",), layout="shared")
    task = InferentialTask(tasks=["kinship"], per_group=count, seed=0, grid=grid.model_dump())
    return [list(item.messages) for item in task.items()[:count]]


async def bench_real(args: argparse.Namespace, k: int) -> list[tuple[str, ...]]:
    """Kinship items K at a time with prefix reuse, against the peer on their token counts."""
    prompts = kinship_prompts(args.real_items)
    wall, replies, layout = await _send({}, prompts, (32, k, 1))
    prompt, generated = _tokens(replies)
    peers = _peer(args, round(prompt / len(replies)), max(1, round(generated / len(replies))), k, 1)
    picked = layout.removeprefix("llamacpp: ")
    name = f"rulebench, {len(prompts)} kinship all-rule items, prefix reuse, {picked}"
    return [(*_row(k, name, (wall, replies), peers), "")]


def run_layout_bench(args: argparse.Namespace) -> None:
    """Print section (e), with date, machine and load."""
    absent = absent_line(args.batched_bench)
    print(f"(e) llamacpp layouts, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {machine()}, "
          f"load average {os.getloadavg()[0]:.2f} before")  # fmt: skip
    if absent:
        print(absent)
    rows: list[tuple[str, ...]] = [
        ("K", "client", "wall", "tokens/s", "vs peer -fa off / auto", "replies")
    ]
    for k in (int(value) for value in args.ks.split(",")):
        rows += asyncio.run(bench_k(args, k))
    if args.real_items:
        rows += asyncio.run(bench_real(args, max(int(v) for v in args.ks.split(","))))
    print_table(rows)
    print(f"load average {os.getloadavg()[0]:.2f} after; tokens/s = (prompt + reply tokens) / "
          "wall, as llama-batched-bench's S t/s")  # fmt: skip
