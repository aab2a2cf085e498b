"""IRFT on the embedded model: training speed and StringGame accuracy before and after.

Builds the default data set, runs the default `rulebench train irft` (or the steps given), and
measures the base and the tuned model on the same in-distribution and held-out-rule test items
the way `rulebench train compare` does (hf backend, greedy, stored runs). Prints the training
figures (steps, tokens/s, wall time, eval loss before/after) and the before/after table.
Issue 11 targets at least +20 points in-distribution on the default CPU run.
Usage: python bench/bench_train.py [--per-group 100] [--max-steps N] [--work DIR] [--run DIR]
"""

import argparse
import asyncio
import json
import platform
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from rulebench.engine.store.database import Store
from rulebench.study.irft import StudyConfig, contender, run_study
from rulebench.train.comparison import markdown_table
from rulebench.train.data import read_examples, write_dataset
from rulebench.train.examples import DataConfig, Split
from rulebench.train.irft import run_irft
from rulebench.train.irft_config import IrftConfig


def answer_baselines(data: Path, split: Split, n: int) -> dict[str, float]:
    """Accuracy of two guessers that never read the string, on the first n items of a split.

    "most common answer": the training split's most frequent answer, always. "golden rule's
    most common answer": that of the golden rule in training (it knows which rule applies,
    which a model must find out). They bound what learning answer priors alone can give.
    """
    train = read_examples(data, "train")
    overall = Counter(example.answer for example in train).most_common(1)[0][0]
    by_rule: dict[str, Counter[str]] = defaultdict(Counter)
    for example in train:
        by_rule[example.golden_rule][example.answer] += 1
    items = read_examples(data, split)[:n]
    per_rule = sum(
        1
        for example in items
        if by_rule[example.golden_rule]
        and by_rule[example.golden_rule].most_common(1)[0][0] == example.answer
    )
    return {
        "most common answer": sum(e.answer == overall for e in items) / len(items),
        "golden rule's most common answer": per_rule / len(items),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-group", type=int, default=100, help="Items per test split.")
    parser.add_argument("--max-steps", type=int, default=None, help="Default: irft's default.")
    parser.add_argument("--work", type=Path, default=None, help="Folder for data, run, store.")
    parser.add_argument("--run", type=Path, default=None, help="Skip training: this run folder.")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-train-"))
    data = work / "data"
    print(f"work folder {work}; {platform.processor() or platform.machine()}", flush=True)
    if not (data / "manifest.json").is_file():
        write_dataset(DataConfig(per_group=max(args.per_group, 200)), data)
    run_folder = args.run
    if run_folder is None:
        run_folder = work / "run"
        config = IrftConfig(data=data, output=run_folder, max_steps=args.max_steps)
        print("training:", config.model_dump_json(exclude={"data", "output"}), flush=True)
        start = time.monotonic()
        result = run_irft(config, store=work / "store.sqlite")
        summary = result.model_dump(mode="json", exclude={"loss_curve", "adapter", "merged"})
        print(f"trained in {time.monotonic() - start:.0f} s:", json.dumps(summary), flush=True)
    base = contender("base", "hf/SmolLM2-135M-Instruct")
    tuned = contender("tuned", str(run_folder))
    study = StudyConfig(
        data=data, stringgame_per_group=args.per_group, rulebench=False, scenarios=False
    )
    start = time.monotonic()
    with Store(work / "store.sqlite") as store:
        outcome = asyncio.run(run_study(study, base, tuned, store))
    print(f"measured in {time.monotonic() - start:.0f} s", flush=True)
    print(markdown_table(outcome.rows), end="")
    for split in ("test", "heldout"):
        found = answer_baselines(data, split, args.per_group)
        shown = ", ".join(f"{name} {100 * value:.1f}%" for name, value in found.items())
        print(f"answer-prior baselines on {split}: {shown}")


if __name__ == "__main__":
    main()
