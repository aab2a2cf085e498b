"""Inferential items on the embedded model: what batching and the shared rule layout buy.

Kinship all-rule items (30 rules, about 1,400 prompt tokens each) on the embedded
SmolLM2-135M-Instruct, run through the real runner and store (cache off). Prints items/s for:
  - one request at a time (concurrency 1) vs batched (requests queued together),
  - per-item shuffled rule lists vs the shared layout (one rule list first in every prompt,
    so the KV prefix is reused).
The llamacpp backend decodes one sequence at a time; "batched" there means requests queue up
and the backend serves the one sharing the longest prefix with its KV cache first. With
--backend hf, batched means real batched generation.
Usage: python bench/bench_inferential.py [--per-group 20] [--max-tokens 16] [--backend llamacpp|hf]
"""

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.inferential.settings import Grid, Layout
from rulebench.inferential.task import InferentialTask
from rulebench.models.base import BackendOptions
from rulebench.models.registry import EMBEDDED_MODEL_NAME, create_model


async def measure(
    backend: str, layout: Layout, concurrency: int, args: argparse.Namespace
) -> float:
    """Items/s for one combination, in a fresh store."""
    grid = Grid(quantities=("all",), layout=layout)
    task = InferentialTask(
        tasks=["kinship"], per_group=args.per_group, seed=args.seed, grid=grid.model_dump()
    )
    model = create_model(f"{backend}/{EMBEDDED_MODEL_NAME}", BackendOptions())
    spec = RunSpec(task="inferential", model=backend, concurrency=concurrency, use_cache=False)
    spec = spec.model_copy(
        update={"generate": spec.generate.model_copy(update={"max_tokens": args.max_tokens})}
    )
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
        start = time.perf_counter()
        await Runner(store).run(task, model, spec)
        wall = time.perf_counter() - start
    await model.aclose()
    items: int = args.per_group
    return items / wall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--per-group", type=int, default=20, help="kinship samples")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--batch", type=int, default=8, help="concurrency of the batched runs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", choices=["llamacpp", "hf"], default="llamacpp")
    args = parser.parse_args()
    asyncio.run(
        measure(args.backend, "per-item", 1, argparse.Namespace(**{**vars(args), "per_group": 1}))
    )  # load once
    model = f"{args.backend}/{EMBEDDED_MODEL_NAME}"
    print(
        f"kinship all-rule items on {model}: {args.per_group} items, max_tokens {args.max_tokens}"
    )
    print(f"{'layout':<10} {'one at a time':>14} {'batched (c=' + str(args.batch) + ')':>16}")
    for layout in ("per-item", "shared"):
        naive = asyncio.run(measure(args.backend, layout, 1, args))
        batched = asyncio.run(measure(args.backend, layout, args.batch, args))
        print(f"{layout:<10} {naive:>10.2f} it/s {batched:>12.2f} it/s")


if __name__ == "__main__":
    main()
