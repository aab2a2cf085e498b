"""GCG on an hf model: seconds per step at given search widths, and a default short attack.

Part 1 times single GCG steps (gradient, candidate sampling and filtering, batched candidate
losses on the prefix cache) on one scenario instance at each --widths value. Part 2 runs the
default `rulebench attack gcg` settings (or the steps given) on one harmless and one helpful
rule and prints the held-out target loss and the targets reproduced, initial -> final suffix.
Usage: python bench/bench_gcg.py [--model hf/...] [--widths 64,512] [--steps N] [--skip-attack]
"""

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from rulebench.attack.attack_run import attack_config, run_attack
from rulebench.attack.gcg.config import GcgConfig
from rulebench.attack.gcg.prompt import load_attack_model
from rulebench.attack.gcg.search import GcgAttack
from rulebench.attack.instances import RulePrompts
from rulebench.engine.store.database import Store
from rulebench.models.local_chat import template_takes_system
from rulebench.scenarios.protocol import Protocol

RULES = (("Encryption", "Encryption"), ("Integrity", "Integrity"))
"""One harmless rule (the secret as target) and one helpful rule (an acceptance sentence)."""


def time_steps(model: str, widths: list[int], repeats: int, device: str) -> None:
    """Seconds per step at each search width, on one Encryption instance."""
    loaded = load_attack_model(model, device)  # type: ignore[arg-type]
    rule = RulePrompts("Encryption", "Encryption", Protocol(), template_takes_system(loaded.render))
    prompts = rule.sample("bench", 1)
    print(f"step time on {model} ({loaded.device}, {loaded.dtype_name}), 20-token suffix:")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="hf/SmolLM2-135M-Instruct")
    parser.add_argument("--widths", default="64,512", help="Search widths to time.")
    parser.add_argument("--repeats", type=int, default=5, help="Timed steps per width.")
    parser.add_argument("--steps", type=int, default=None, help="Default: the quick preset's.")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads.")
    parser.add_argument("--skip-attack", action="store_true", help="Only time steps.")
    parser.add_argument("--store", type=Path, default=None, help="Default: a temporary one.")
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)

    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, torch "
        f"{torch.__version__}, {torch.get_num_threads()} threads"
    )
    time_steps(args.model, [int(w) for w in args.widths.split(",")], args.repeats, args.device)
    if args.skip_attack:
        return
    with tempfile.TemporaryDirectory() as folder:
        default_attacks(args.model, args.steps, args.device, args.store or Path(folder) / "s.db")


if __name__ == "__main__":
    main()
