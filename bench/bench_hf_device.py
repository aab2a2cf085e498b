"""The hf backend on its best device (a GPU when there is one): batching, scoring, whole runs.

Prints, with the device, dtype and peak accelerator memory:
  (a) generation: B distinct requests sent together (one batch of B) vs one at a time,
      generated tokens/s;
  (b) log-likelihood scoring: N questions with K choices each, sent together, items/s;
  (c) `rulebench run inferential --limit L --no-cache` on the model, generated and with
      `--scoring loglik`: wall time and items/s of whole runs, results stored.
On a GPU the backend loads bfloat16 weights (`-M dtype=auto`); on the CPU float32. The model is
the embedded SmolLM2-135M-Instruct (its GGUF dequantized) unless --model names an HF folder.
Runs on the CPU too, slowly: use small sizes there (--batch 4 --questions 8 --limit 8).
Usage: python bench/bench_hf_device.py [--model NAME] [--device auto] [--dtype auto]
       [--batch 32] [--max-tokens 64] [--questions 64] [--limit 100] [--skip-runs]
"""

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_common import print_table, timed
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.registry import EMBEDDED_MODEL_NAME

os.environ.setdefault("HF_HUB_OFFLINE", "1")

Row = tuple[str, ...]


def requests(count: int) -> list[list[Message]]:
    """Distinct short requests, so nothing is shared between them."""
    return [
        [Message(role="user", content=f"Describe harbour number {i} and its boats in detail.")]
        for i in range(count)
    ]


def choice_questions(count: int) -> list[list[Message]]:
    """Yes/no questions under one rule, as inferential items with a closed answer set are."""
    rule = "Rule: if a ship flies a red flag, it may not enter the harbour."
    return [
        [Message(role="user", content=f"{rule}\nShip {i} flies a red flag. May it enter?")]
        for i in range(count)
    ]


def device_facts(model: Any) -> str:
    """Device name, dtype and peak accelerator memory so far."""
    import torch

    loaded = model._worker.loaded
    text = f"device {loaded.device}, dtype {loaded.dtype_name}"
    if loaded.device == "cuda":
        peak = torch.cuda.max_memory_allocated() / 2**30
        text += f" ({torch.cuda.get_device_name()}), peak memory {peak:.2f} GiB"
    return text


async def bench_model(args: argparse.Namespace) -> tuple[list[Row], str]:
    from rulebench.models.hf.backend import HFModel

    options = BackendOptions(
        args={"device": args.device, "dtype": args.dtype, "max_batch_size": str(args.batch)}
    )
    model = HFModel.create(args.model, options)
    await model.generate(requests(1)[0], GenerateConfig(max_tokens=2))  # warm up
    config = GenerateConfig(max_tokens=args.max_tokens)
    rows: list[Row] = []
    for together in (False, True):
        elapsed, _, generated = await timed(model, requests(args.batch), config, together)
        rows.append((
            f"generate, {'batched' if together else 'one at a time'}", f"{args.batch} requests",
            f"{elapsed:.2f} s", f"{generated / elapsed:,.1f} gen tok/s",
        ))  # fmt: skip
    questions = choice_questions(args.questions)
    choices: Sequence[str] = ("Yes", "No")
    start = time.perf_counter()
    await asyncio.gather(*(model.score_choices(q, choices) for q in questions))
    elapsed = time.perf_counter() - start
    rows.append((
        "log-likelihood scoring", f"{args.questions} items x {len(choices)} choices",
        f"{elapsed:.2f} s", f"{args.questions / elapsed:,.1f} items/s",
    ))  # fmt: skip
    return rows, device_facts(model)


def bench_runs(args: argparse.Namespace) -> list[Row]:
    """Whole `rulebench run inferential` runs in fresh processes and stores."""
    rows: list[Row] = []
    spec = f"hf/{args.model}"
    for scoring in ("generate", "loglik"):
        with tempfile.TemporaryDirectory() as folder:
            command = [
                sys.executable, "-c", "from rulebench.cli.app import main; main()",
                "run", "inferential", "-t", "kinship", "-m", spec, "-M", f"device={args.device}",
                "-M", f"dtype={args.dtype}", "--limit", str(args.limit), "--no-cache",
                "--scoring", scoring, "--json", "--store", str(Path(folder) / "runs.sqlite"),
            ]  # fmt: skip
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            elapsed = time.perf_counter() - start
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            rows.append((f"run inferential --scoring {scoring}", "failed", last, ""))
            continue
        summary = json.loads(done.stdout)["summary"][-1]  # the "all" row
        items = summary["items"]
        rows.append((
            f"run inferential --scoring {scoring}", f"{items} items",
            f"{elapsed:.1f} s", f"{items / elapsed:,.2f} items/s, {summary['errors']} errors",
        ))  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=EMBEDDED_MODEL_NAME, help="hf model name or folder")
    parser.add_argument("--device", default="auto", help="auto, cuda, mps or cpu")
    parser.add_argument("--dtype", default="auto", help="auto, bfloat16, float16 or float32")
    parser.add_argument("--batch", type=int, default=32, help="requests generated together (a)")
    parser.add_argument("--max-tokens", type=int, default=64, help="reply length for (a)")
    parser.add_argument("--questions", type=int, default=64, help="items scored together (b)")
    parser.add_argument("--limit", type=int, default=100, help="items of each whole run (c)")
    parser.add_argument("--skip-runs", action="store_true", help="leave out (c)")
    args = parser.parse_args()
    rows, facts = asyncio.run(bench_model(args))
    if not args.skip_runs:
        rows += bench_runs(args)
    print(f"hf backend, {args.model}: {facts}")
    print_table(rows)


if __name__ == "__main__":
    main()
