"""IRFT on the embedded model: training speed and StringGame accuracy before and after.

Builds the default data set, measures the base model's greedy accuracy on N in-distribution
test items and N held-out-rule items, runs the default `train irft` (or the steps given),
then measures the tuned model (base + adapter) on the same items. Prints wall time, tokens/s,
eval loss before/after and the accuracies with their differences (issue 11 targets at least
+20 points in-distribution on the default CPU run).
Usage: python bench/bench_irft.py [--n 100] [--max-steps 60] [--work DIR] [--adapter DIR]
"""

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rulebench.models.hf_loading import transformers_weights
from rulebench.train.data import read_examples, write_dataset
from rulebench.train.examples import DataConfig, TrainingExample
from rulebench.train.irft import run_irft
from rulebench.train.irft_config import IrftConfig
from rulebench.train.trainer import use_bf16

ANSWER = re.compile(r"answer is\s*(-?\d+)", re.IGNORECASE)
INTEGER = re.compile(r"-?\d+")


def extract(reply: str) -> str | None:
    """The number after the last "answer is", else the last integer."""
    marked = ANSWER.findall(reply)
    if marked:
        return marked[-1]
    found = INTEGER.findall(reply)
    return found[-1] if found else None


def load(adapter: Path | None) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, _ = transformers_weights("SmolLM2-135M-Instruct")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(folder)
    if adapter is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter)
    return model.eval(), tokenizer


def accuracy(model: Any, tokenizer: Any, examples: list[TrainingExample], batch: int) -> float:
    """Greedy replies (24 new tokens at most), scored against the oracle's answers."""
    import torch

    correct = 0
    bf16 = use_bf16("auto", "cpu")
    ordered = sorted(examples, key=lambda e: len(e.prompt))  # less padding per batch
    for start in range(0, len(ordered), batch):
        chunk = ordered[start : start + batch]
        texts = [
            tokenizer.apply_chat_template(
                [{"role": "user", "content": e.prompt}], tokenize=False, add_generation_prompt=True
            )
            for e in chunk
        ]
        inputs = tokenizer(texts, return_tensors="pt", padding=True)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            output = model.generate(
                **inputs, max_new_tokens=24, do_sample=False, pad_token_id=tokenizer.pad_token_id
            )
        replies = tokenizer.batch_decode(
            output[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True
        )
        correct += sum(extract(r) == e.answer for r, e in zip(replies, chunk, strict=True))
    return correct / len(examples)


def measure(
    adapter: Path | None, splits: dict[str, list[TrainingExample]], batch: int
) -> dict[str, float]:
    model, tokenizer = load(adapter)
    scores = {}
    for name, examples in splits.items():
        start = time.monotonic()
        scores[name] = accuracy(model, tokenizer, examples, batch)
        print(f"  {name}: {scores[name]:.1%} ({time.monotonic() - start:.0f} s)", flush=True)
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="Items per test split.")
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--batch", type=int, default=16, help="Generation batch size.")
    parser.add_argument("--work", type=Path, default=None, help="Folder for data and run.")
    parser.add_argument("--adapter", type=Path, default=None, help="Skip training: use this.")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-irft-"))
    data = work / "data"
    if not (data / "manifest.json").is_file():
        write_dataset(DataConfig(test_size=max(args.n, 200)), data)
    splits = {s: read_examples(data, s)[: args.n] for s in ("test", "heldout")}
    print(f"work folder {work}; {args.n} items per split", flush=True)
    print("base model:", flush=True)
    before = measure(None, splits, args.batch)
    adapter = args.adapter
    if adapter is None:
        config = IrftConfig(data=data, output=work / "run", max_steps=args.max_steps)
        result = run_irft(config, store=work / "store.sqlite")
        adapter = result.adapter
        summary = result.model_dump(mode="json", exclude={"loss_curve", "adapter", "merged"})
        print("training:", json.dumps(summary), flush=True)
    print("tuned model:", flush=True)
    after = measure(adapter, splits, args.batch)
    for name in splits:
        diff = (after[name] - before[name]) * 100
        print(f"{name:8} before {before[name]:6.1%}  after {after[name]:6.1%}  {diff:+.1f} points")


if __name__ == "__main__":
    sys.exit(main())
