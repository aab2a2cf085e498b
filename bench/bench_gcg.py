"""GCG on an hf model: seconds per step at given search widths, nanoGCG beside it, an attack.

Part 1 times single GCG steps (gradient, candidate sampling and filtering, batched candidate
losses on the prefix cache) on one scenario instance at each --widths value. Part 2, with
--nanogcg-python (a venv's python with nanogcg and transformers 4.x), runs nanoGCG and
rulebench on that instance with equal settings (bench/gcg_compare.py): seconds per step, peak
memory, the ratio and both loss trajectories. Part 3 runs the default `rulebench attack gcg`
settings (or the steps given) on one harmless and one helpful rule and prints the held-out
target loss and the targets reproduced, initial -> final suffix.
Usage: python bench/bench_gcg.py [--model hf/...] [--widths 64,512] [--steps N] [--skip-attack]
    [--nanogcg-python PATH [--compare-only] [--compare-repeats N]]
"""

import argparse
import datetime
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench_common import machine
from gcg_compare import Settings, compare
from rulebench.attack.attack_run import attack_config, run_attack
from rulebench.attack.gcg.config import GcgConfig
from rulebench.attack.gcg.prompt import AttackPrompt, load_attack_model
from rulebench.attack.gcg.search import GcgAttack
from rulebench.attack.instances import RulePrompts
from rulebench.engine.store.database import Store
from rulebench.models.hf.loading import LoadedModel
from rulebench.models.local_chat import template_takes_system
from rulebench.scenarios.protocol import Protocol

RULES = (("Encryption", "Encryption"), ("Integrity", "Integrity"))
"""One harmless rule (the secret as target) and one helpful rule (an acceptance sentence)."""


def bench_prompt(loaded: LoadedModel) -> AttackPrompt:
    """The attacked prompt: one Encryption instance (its secret as the target)."""
    rule = RulePrompts("Encryption", "Encryption", Protocol(), template_takes_system(loaded.render))
    return rule.sample("bench", 1)[0]


def time_steps(loaded: LoadedModel, widths: list[int], repeats: int) -> None:
    """Seconds per step at each search width, on one Encryption instance."""
    prompts = [bench_prompt(loaded)]
    print(f"step time ({loaded.device}, {loaded.dtype_name}), 20-token suffix:")
    for width in widths:
        config = GcgConfig(search_width=width, topk=min(256, width), num_steps=repeats + 1)
        attack = GcgAttack(loaded, prompts, config)
        state = attack.initial_state()
        state = attack.step(state).state  # warm-up: first-call allocations
        seconds = []
        for _ in range(repeats):
            started = time.perf_counter()
            state = attack.step(state).state
            seconds.append(time.perf_counter() - started)
        print(
            f"  search width {width:4d}: {statistics.median(seconds):.2f} s/step "
            f"(median of {repeats}; min {min(seconds):.2f}, max {max(seconds):.2f})"
        )


def default_attacks(model: str, steps: int | None, device: str, store: Path) -> None:
    """The default attack on each rule of RULES: held-out loss and targets, before and after."""
    gcg = GcgConfig.preset("quick", **({"num_steps": steps} if steps else {}))
    print(f"default attacks: {gcg.num_steps} steps, width {gcg.search_width}, top-{gcg.topk}")
    with Store(store) as db:
        for scenario, behavior in RULES:
            config = attack_config(model, scenario, behavior, gcg=gcg, device=device)
            started = time.perf_counter()
            result = run_attack(config, db)
            wall = time.perf_counter() - started
            initial, final = result.initial, result.final
            print(
                f"  {scenario}/{behavior}: run {result.run_id}, {wall:.0f} s "
                f"({result.seconds_per_step or 0:.2f} s/step); held-out loss "
                f"{initial.loss:.3f} -> {final.loss:.3f}; targets reproduced "
                f"{initial.reached}/{initial.instances} -> {final.reached}/{final.instances}; "
                f"suffix {result.suffix!r}"
            )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="hf/SmolLM2-135M-Instruct")
    parser.add_argument("--widths", default="64,512", help="Search widths to time.")
    parser.add_argument("--repeats", type=int, default=5, help="Timed steps per width.")
    parser.add_argument("--steps", type=int, default=None, help="Default: the quick preset's.")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads.")
    parser.add_argument("--skip-attack", action="store_true", help="Only time steps.")
    parser.add_argument("--store", type=Path, default=None, help="Default: a temporary one.")
    parser.add_argument(
        "--nanogcg-python", default=None, help="A python with nanogcg: compare with it."
    )
    parser.add_argument("--compare-repeats", type=int, default=3, help="Timed steps a side.")
    parser.add_argument("--compare-width", type=int, default=512, help="Its search width.")
    parser.add_argument("--compare-only", action="store_true", help="Only the comparison.")
    return parser.parse_args()


def print_conditions(torch_version: str, threads: int) -> None:
    """Date, machine and load: the line a figure is cited with."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{now}; {machine()}; torch {torch_version}, {threads} threads; load {load}")


def main() -> None:
    args = parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    print_conditions(torch.__version__, torch.get_num_threads())
    loaded = load_attack_model(args.model, args.device)
    if not args.compare_only:
        time_steps(loaded, [int(w) for w in args.widths.split(",")], args.repeats)
    if args.nanogcg_python is None:
        print("nanoGCG comparison skipped: no --nanogcg-python given")
    else:
        settings = Settings(
            width=args.compare_width, topk=min(256, args.compare_width),
            repeats=args.compare_repeats, threads=torch.get_num_threads(),
        )  # fmt: skip
        compare(loaded, bench_prompt(loaded), args.nanogcg_python, settings)
    if not (args.skip_attack or args.compare_only):
        with tempfile.TemporaryDirectory() as folder:
            store = args.store or Path(folder) / "s.db"
            default_attacks(args.model, args.steps, args.device, store)
    print(f"load after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
