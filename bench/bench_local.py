"""Local backends on the embedded SmolLM2-135M-Instruct: what prefix reuse and batching buy.

Prints:
  (a) llamacpp: items/s for N questions that share a long rule prefix (~1,500 tokens), sent
      together as the runner would, with KV-prefix reuse vs `-M prefix_reuse=false`.
  (b) hf (the same GGUF, dequantized to float32): generated tokens/s for B concurrent requests
      (one batch) vs the same requests one at a time.
  (c) with --threads-batch: llamacpp prompt evaluation tokens/s per n_threads_batch value.
  (d) with --llama-settings: llamacpp items/s and generated tokens/s for --batch distinct
      questions sent together, per engine setting (`lanes=1,n_seq_max=1;lanes=1;lanes=2`):
      what the lanes (contexts side by side) and decoding sequences together buy.
  (e) with --batched-bench PATH: llamacpp against llama.cpp's llama-batched-bench on the same
      work, K = --ks prompts in flight (batched_bench_peer): tokens/s of the layout rulebench
      picks for K, of the --layouts given, and of the peer; and on real RuleBench prompts
      sharing their rules, where prefix reuse applies (layout_bench).
Timings on a shared machine move with its load; run it alone.
Usage: python bench/bench_local.py [--questions 20] [--rules 38] [--batch 8] [--skip-hf]
       [--llama-settings "lanes=1,n_seq_max=1;lanes=2"] [--batched-bench PATH --ks 1,4,8,16]
"""

import argparse
import asyncio
import os
import time

from bench_common import print_table, timed
from layout_bench import add_layout_arguments, run_layout_bench
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.registry import EMBEDDED_MODEL_NAME

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def rules(count: int) -> str:
    """A rule set of about 40 tokens per rule."""
    return "\n".join(
        f"Rule {i}: if a person holds harbour permit {i} and lives in district {i + 3}, "
        f"they may enter zone {i * 7} only on day {i % 5 + 1} of the week."
        for i in range(count)
    )


def questions(count: int, system: str | None) -> list[list[Message]]:
    head = [Message(role="system", content=system)] if system else []
    return [
        [*head, Message(role="user", content=f"May a holder of permit {i} enter zone {i * 7}?")]
        for i in range(count)
    ]


async def bench_prefix(args: argparse.Namespace) -> list[tuple[str, ...]]:
    from rulebench.models.llamacpp.backend import LlamaCppModel

    config = GenerateConfig(max_tokens=args.llama_max_tokens)
    conversations = questions(args.questions, rules(args.rules))
    rows: list[tuple[str, ...]] = []
    for reuse in ("true", "false"):
        model = LlamaCppModel.create(
            EMBEDDED_MODEL_NAME, BackendOptions(args={"prefix_reuse": reuse})
        )
        await model.generate(questions(1, None)[0], config)  # load; cache an unrelated prompt
        before = model.stats.evaluated_prompt_tokens
        elapsed, prompt, _ = await timed(model, conversations, config, together=True)
        evaluated = model.stats.evaluated_prompt_tokens - before
        rows.append((
            f"llamacpp prefix_reuse={reuse}", f"{args.questions} items",
            f"{elapsed:.1f} s", f"{args.questions / elapsed:.2f} items/s",
            f"prompt {prompt // args.questions} tok/item, evaluated {evaluated} of {prompt}",
        ))  # fmt: skip
    return rows


async def bench_batching(args: argparse.Namespace) -> list[tuple[str, ...]]:
    from rulebench.models.hf.backend import HFModel

    model = HFModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args={"device": "cpu"}))
    config = GenerateConfig(max_tokens=args.hf_max_tokens)
    conversations = questions(args.batch, None)
    await model.generate(conversations[0], GenerateConfig(max_tokens=2))  # warm up
    rows: list[tuple[str, ...]] = []
    for together in (False, True):
        runs = len(model.stats.batch_sizes)
        elapsed, _, generated = await timed(model, conversations, config, together)
        sizes = model.stats.batch_sizes[runs:]
        rows.append((
            f"hf {'batched' if together else 'one at a time'}", f"{args.batch} requests",
            f"{elapsed:.1f} s", f"{generated / elapsed:.1f} gen tok/s",
            f"batch sizes {sizes}, {generated} tokens generated",
        ))  # fmt: skip
    return rows


async def bench_lanes(args: argparse.Namespace) -> list[tuple[str, ...]]:
    """Distinct questions sent together, per llamacpp engine setting."""
    from rulebench.models.llamacpp.backend import LlamaCppModel
    from rulebench.models.llamacpp.engine import free_llama_cache

    config = GenerateConfig(max_tokens=args.lanes_max_tokens)
    conversations = [
        [Message(role="user", content=f"Write a short story about harbour {i} and its boats.")]
        for i in range(args.batch)
    ]
    rows: list[tuple[str, ...]] = []
    for setting in args.llama_settings.split(";"):
        pairs = dict(pair.split("=", 1) for pair in setting.split(",") if pair)
        model = LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args=pairs))
        await model.generate(questions(1, None)[0], GenerateConfig(max_tokens=2))  # load
        elapsed, _, generated = await timed(model, conversations, config, together=True)
        free_llama_cache()
        rows.append((
            f"llamacpp {setting or 'defaults'}", f"{args.batch} requests", f"{elapsed:.1f} s",
            f"{args.batch / elapsed:.2f} items/s", f"{generated / elapsed:.1f} gen tok/s",
        ))  # fmt: skip
    return rows


def bench_threads_batch(args: argparse.Namespace) -> list[tuple[str, ...]]:
    """Prompt evaluation speed per n_threads_batch, alternating settings to share the noise."""
    import llama_cpp

    from rulebench.models.embedded import embedded_gguf_path

    path = str(embedded_gguf_path())
    settings = [int(v) for v in args.threads_batch.split(",")]
    llms = {tb: llama_cpp.Llama(model_path=path, n_ctx=4096, n_threads=1, n_threads_batch=tb,
                                verbose=False) for tb in settings}  # fmt: skip
    tokens = llms[settings[0]].tokenize(rules(args.rules).encode(), add_bos=False)
    rates: dict[int, list[float]] = {tb: [] for tb in settings}
    for _ in range(args.repeats):
        for tb, llm in llms.items():
            llm.reset()
            start = time.perf_counter()
            llm.eval(tokens)
            rates[tb].append(len(tokens) / (time.perf_counter() - start))
    return [
        (f"llamacpp n_threads_batch={tb}", f"{len(tokens)} prompt tokens x {args.repeats}",
         f"median {sorted(r)[len(r) // 2]:.0f} tok/s", f"min {min(r):.0f} tok/s",
         f"max {max(r):.0f} tok/s")
        for tb, r in rates.items()
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20, help="items sharing the rules (a)")
    parser.add_argument("--rules", type=int, default=38, help="rules in the prefix (~40 tok each)")
    parser.add_argument("--llama-max-tokens", type=int, default=16)
    parser.add_argument("--batch", type=int, default=8, help="concurrent hf requests (b)")
    parser.add_argument("--hf-max-tokens", type=int, default=32)
    parser.add_argument("--skip-llamacpp", action="store_true")
    parser.add_argument("--skip-hf", action="store_true")
    parser.add_argument("--threads-batch", default="", help="e.g. 1,2: measure (c) too")
    parser.add_argument("--repeats", type=int, default=5, help="rounds for (c)")
    parser.add_argument("--llama-settings", default="", help="e.g. lanes=1,n_seq_max=1;lanes=2")
    parser.add_argument("--lanes-max-tokens", type=int, default=64, help="reply length for (d)")
    add_layout_arguments(parser)
    args = parser.parse_args()
    rows: list[tuple[str, ...]] = []
    if not args.skip_llamacpp:
        rows += asyncio.run(bench_prefix(args))
    if not args.skip_hf:
        rows += asyncio.run(bench_batching(args))
    if args.threads_batch:
        rows += bench_threads_batch(args)
    if args.llama_settings:
        rows += asyncio.run(bench_lanes(args))
    if rows:
        print_table(rows)
    if args.batched_bench is not None or args.layouts:
        run_layout_bench(args)


if __name__ == "__main__":
    main()
