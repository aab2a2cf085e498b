"""bench_gcg's side-by-side comparison: rulebench's GCG step and nanoGCG's on equal settings.

Both sides load one save_pretrained copy of the weights rulebench loaded, attack the same
rendered prompt, target and initial suffix with the same width, top-k, n_replace and seed,
and each runs in a fresh process of its own, so its peak memory is the search's and not the
bench's: nanoGCG in the venv given (bench/nanogcg_peer.py), rulebench in this one
(`python bench/gcg_compare.py SPEC OUT`). The first step of each side is a warm-up; seconds per
step are the median of the others. The spec is JSON, so the two venvs share no code.
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rulebench.attack.gcg.config import DEFAULT_SUFFIX_INIT, GcgConfig
from rulebench.attack.gcg.prompt import (
    AttackPrompt,
    encode,
    load_attack_model,
    tokenize_prompt,
    with_suffix,
)
from rulebench.attack.gcg.search import GcgAttack
from rulebench.models.hf.loading import LoadedModel
from rulebench.models.local_chat import to_chat_dicts

PEER = Path(__file__).with_name("nanogcg_peer.py")
_MARK = "\x00bench-gcg-suffix\x00"


@dataclass(frozen=True)
class Settings:
    """The search both sides run: nanoGCG's defaults but for the steps."""

    width: int = 512
    topk: int = 256
    n_replace: int = 1
    seed: int = 0
    repeats: int = 3
    """Timed steps after the warm-up step."""
    threads: int = 0
    """torch CPU threads on both sides; 0: torch's default."""


def nanogcg_version(python: str) -> str | None:
    """The version of nanogcg in that python, or None where it does not import (or runs at all)."""
    try:
        probe = subprocess.run(
            [python, str(PEER), "--probe"], capture_output=True, text=True, timeout=120
        )
    except OSError:
        return None
    if probe.returncode != 0:
        return None
    return probe.stdout.strip() or "unknown"


def write_spec(loaded: LoadedModel, prompt: AttackPrompt, settings: Settings, folder: Path) -> Path:
    """Save the weights and describe the attack for both sides; the spec file's path."""
    model_folder = folder / "model"
    loaded.model.save_pretrained(model_folder)
    loaded.tokenizer.save_pretrained(model_folder)
    text = loaded.render(to_chat_dicts(with_suffix(prompt.messages, _MARK, prompt.suffix_at)))
    before, after = text.split(_MARK)
    tokens = tokenize_prompt(loaded, prompt, space_target=False)
    spec = {
        "model_folder": str(model_folder), "prompt": prompt.model_dump(mode="json"),
        "before": before, "after": after, "target": prompt.target,
        "optim_str_init": DEFAULT_SUFFIX_INIT, "search_width": settings.width,
        "topk": settings.topk, "n_replace": settings.n_replace, "seed": settings.seed,
        "num_steps": settings.repeats + 1, "threads": settings.threads or _default_threads(),
        "ids": {
            "before": list(tokens.before), "after": list(tokens.after),
            "target": list(tokens.target), "suffix": list(encode(loaded, DEFAULT_SUFFIX_INIT)),
        },
    }  # fmt: skip
    path = folder / "spec.json"
    path.write_text(json.dumps(spec))
    return path


def _default_threads() -> int:
    import torch

    return int(torch.get_num_threads())


def run_side(command: list[str], spec: Path) -> dict[str, Any]:
    """Run one side on the spec in its own process; what it wrote.

    Raises:
        RuntimeError: the side failed (its output's end is in the message).
    """
    out = spec.with_name(f"out-{len(list(spec.parent.glob('out-*')))}.json")
    env = os.environ | {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    load_before = os.getloadavg()[0]
    done = subprocess.run([*command, str(spec), str(out)], capture_output=True, text=True, env=env)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"{command[-1]} failed ({done.returncode}): {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.read_text())
    result["load"] = (load_before, os.getloadavg()[0])
    return result


def rss_mb(field: str) -> float:
    """A memory figure of this process from /proc/self/status, in MiB (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_ours(spec: dict[str, Any]) -> dict[str, Any]:
    """The rulebench side: GcgAttack on the saved weights, timed step by step."""
    import torch

    torch.set_num_threads(spec["threads"])
    loaded = load_attack_model(f"hf/{spec['model_folder']}", "cpu", "float32")
    config = GcgConfig(
        num_steps=spec["num_steps"], optim_str_init=spec["optim_str_init"],
        search_width=spec["search_width"], topk=spec["topk"], n_replace=spec["n_replace"],
        seed=spec["seed"],
    )  # fmt: skip
    attack = GcgAttack(loaded, [AttackPrompt.model_validate(spec["prompt"])], config)
    rss_loaded = rss_mb("VmRSS")
    state = attack.initial_state()
    initial, seconds, cpu = state.loss, [], []
    for _ in range(config.num_steps):
        started, cpu_started = time.perf_counter(), time.process_time()
        state = attack.step(state).state
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    return {
        "torch": torch.__version__, "threads": torch.get_num_threads(), "step_s": seconds,
        "step_cpu_s": cpu,
        "losses": list(state.losses), "initial_loss": initial, "rss_loaded_mb": rss_loaded,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }  # fmt: skip


def median_step(side: dict[str, Any], key: str = "step_s") -> float:
    """Median seconds per step (wall, or CPU with key "step_cpu_s"), the warm-up left out."""
    steps: list[float] = side[key]
    return statistics.median(steps[1:] or steps)


def print_comparison(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """Seconds per step, memory, the ratio, and both loss trajectories.

    CPU seconds per step are printed too: on a shared machine they move less with others'
    load than wall seconds do (with one thread they are the step's own work).
    """
    mine, peer = median_step(ours), median_step(theirs)
    mine_cpu, peer_cpu = median_step(ours, "step_cpu_s"), median_step(theirs, "step_cpu_s")
    timed = len(ours["step_s"]) - 1
    for name, side, median in (("rulebench", ours, mine), ("nanoGCG", theirs, peer)):
        steps = ", ".join(f"{s:.1f}" for s in side["step_s"])
        print(
            f"  {name:9s}: {median:6.2f} s/step (median of {timed} after a warm-up; all: "
            f"{steps}); peak RSS {side['peak_rss_mb']:.0f} MiB ({side['rss_loaded_mb']:.0f} "
            f"loaded); {side['threads']} threads; 1-min load {side['load'][0]:.2f} before, "
            f"{side['load'][1]:.2f} after"
        )
    for name, side in (("rulebench", ours), ("nanoGCG", theirs)):
        steps = ", ".join(f"{s:.1f}" for s in side["step_cpu_s"])
        print(f"  {name:9s}: {median_step(side, 'step_cpu_s'):6.2f} CPU s/step (all: {steps})")
    print(
        f"  rulebench is {peer / mine:.2f}x nanoGCG's speed per step in wall time, "
        f"{peer_cpu / mine_cpu:.2f}x in CPU time (its s/step / ours)"
    )
    print(f"  initial suffix loss: rulebench {ours['initial_loss']:.5f}, "
          f"nanoGCG {theirs['initial_loss']:.5f}")  # fmt: skip
    print("  loss after each step (rulebench / nanoGCG):")
    for step, (a, b) in enumerate(zip(ours["losses"], theirs["losses"], strict=False), 1):
        print(f"    step {step}: {a:.4f} / {b:.4f}")


def compare(loaded: LoadedModel, prompt: AttackPrompt, python: str, settings: Settings) -> None:
    """The whole comparison, or one line saying why it is skipped."""
    version = nanogcg_version(python)
    if version is None:
        print(f"nanoGCG comparison skipped: {python} cannot import nanogcg")
        return
    print(
        f"nanoGCG {version} ({python}) beside rulebench: width {settings.width}, "
        f"top-{settings.topk}, n_replace {settings.n_replace}, seed {settings.seed}, "
        f"{settings.repeats + 1} steps each"
    )
    with tempfile.TemporaryDirectory() as folder:
        spec = write_spec(loaded, prompt, settings, Path(folder))
        ours = run_side([sys.executable, __file__], spec)
        theirs = run_side([python, str(PEER)], spec)
    print_comparison(ours, theirs)


def main() -> int:
    spec_path, out_path = sys.argv[1:3]
    spec = json.loads(Path(spec_path).read_text())
    Path(out_path).write_text(json.dumps(run_ours(spec)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
