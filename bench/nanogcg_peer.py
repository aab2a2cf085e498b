"""nanoGCG's side of bench_gcg's comparison: run in a venv with nanogcg and transformers 4.x.

Usage: PYTHON bench/nanogcg_peer.py SPEC.json OUT.json. It imports nothing from rulebench
(that venv has none): it reads the spec bench_gcg wrote (a save_pretrained folder of the very
weights rulebench loads, the rendered prompt around the suffix, the search settings and the
token ids rulebench sees), runs nanogcg.GCG on it and writes seconds per step, the loss per
step, the initial suffix's loss and peak memory as JSON. `--probe` exits 0 when nanogcg imports.

Two adjustments keep the prompt rulebench's, and neither touches the search:
- the tokenizer's chat template prints the single message as it is, and the message is
  rulebench's rendered text, so nanoGCG cuts the very text rulebench cuts;
- the tokenizer's BOS is unset: SmolLM2's BOS is `<|im_start|>`, and nanoGCG removes every
  copy of the BOS text from a template that starts with it.
The ids nanoGCG then tokenizes are checked against rulebench's before anything runs.
"""

import itertools
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any


def probe() -> int:
    """0 when nanogcg imports in this python, else 1 (bench_gcg then skips the comparison)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        import nanogcg  # type: ignore[import-not-found]  # noqa: F401  # only in the peer venv
    except ImportError:
        return 1
    try:
        print(version("nanogcg"))
    except PackageNotFoundError:
        print("unknown")
    return 0


def rss_mb(field: str) -> float:
    """A memory figure of this process from /proc/self/status, in MiB (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load(folder: str) -> tuple[Any, Any]:
    """The model and tokenizer bench_gcg saved, for transformers 4.x.

    transformers 5 writes the rope base inside `rope_parameters`; 4.x reads `rope_theta`,
    and without it would rotate with its default base, i.e. run other weights' maths.
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, PreTrainedTokenizerFast

    config = AutoConfig.from_pretrained(folder)
    rope = getattr(config, "rope_parameters", None)
    if isinstance(rope, dict) and "rope_theta" in rope:
        config.rope_theta = rope["rope_theta"]
    model: Any = AutoModelForCausalLM.from_pretrained(
        folder, config=config, torch_dtype=torch.float32
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(Path(folder) / "tokenizer.json"))
    tokenizer.chat_template = "{{ messages[0]['content'] }}"
    return model.eval(), tokenizer


def check_ids(tokenizer: Any, spec: dict[str, Any]) -> None:
    """Stop unless nanoGCG's tokenization of the prompt is rulebench's."""
    pieces = {
        "before": tokenizer(spec["before"])["input_ids"],
        "after": tokenizer(spec["after"], add_special_tokens=False)["input_ids"],
        "target": tokenizer(spec["target"], add_special_tokens=False)["input_ids"],
        "suffix": tokenizer(spec["optim_str_init"], add_special_tokens=False)["input_ids"],
    }
    for name, ids in pieces.items():
        if ids != spec["ids"][name]:
            sys.exit(f"nanogcg_peer: the {name} tokens differ from rulebench's: {ids}")


def timed_gcg() -> type:
    """nanogcg.GCG that notes when each step starts (its gradient) and the initial loss."""
    from nanogcg.gcg import GCG  # type: ignore[import-not-found]  # only in the peer venv

    class TimedGCG(GCG):  # type: ignore[misc]  # nanogcg has no annotations
        step_starts: list[tuple[float, float]]
        initial_loss: float

        def init_buffer(self) -> Any:
            self.step_starts = []
            buffer = super().init_buffer()
            self.initial_loss = float(buffer.buffer[0][0])
            return buffer

        def compute_token_gradient(self, optim_ids: Any) -> Any:
            self.step_starts.append((time.perf_counter(), time.process_time()))
            return super().compute_token_gradient(optim_ids)

    return TimedGCG


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """Run nanoGCG as the spec says; its figures and trajectory as a JSON-ready dict."""
    import logging
    from importlib.metadata import version

    import nanogcg
    import torch
    import transformers

    torch.set_num_threads(spec["threads"])
    model, tokenizer = load(spec["model_folder"])
    tokenizer.bos_token = None
    check_ids(tokenizer, spec)
    config = nanogcg.GCGConfig(
        num_steps=spec["num_steps"], optim_str_init=spec["optim_str_init"],
        search_width=spec["search_width"], topk=spec["topk"], n_replace=spec["n_replace"],
        seed=spec["seed"], verbosity="WARNING",
    )  # fmt: skip
    logging.getLogger("nanogcg").setLevel(config.verbosity)  # as nanogcg.run() does
    gcg = timed_gcg()(model, tokenizer, config)
    rss_loaded = rss_mb("VmRSS")
    message = spec["before"] + "{optim_str}" + spec["after"]
    result = gcg.run([{"role": "user", "content": message}], spec["target"])
    starts = [*gcg.step_starts, (time.perf_counter(), time.process_time())]
    return {
        "version": version("nanogcg"),
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "step_s": [b[0] - a[0] for a, b in itertools.pairwise(starts)],
        "step_cpu_s": [b[1] - a[1] for a, b in itertools.pairwise(starts)],
        "losses": [float(loss) for loss in result.losses],
        "initial_loss": gcg.initial_loss,
        "rss_loaded_mb": rss_loaded,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> int:
    if sys.argv[1:] == ["--probe"]:
        return probe()
    spec_path, out_path = sys.argv[1:3]
    spec = json.loads(Path(spec_path).read_text())
    Path(out_path).write_text(json.dumps(run(spec)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
