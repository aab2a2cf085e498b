"""llama.cpp's own `llama-batched-bench` as the peer of rulebench's llamacpp backend.

It decodes K sequences of `npp` prompt tokens and `ntg` generated tokens each in one context,
with `-t` threads, and reports the whole job's tokens per second (its "S t/s" column): the
speed a bare llama.cpp gets on the same work. It builds from the llama.cpp that the installed
llama-cpp-python's source distribution vendors (`vendor/llama.cpp`):

    cmake -B build -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF
    cmake --build build --target llama-batched-bench
"""

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|(.*)\|\s*$")


@dataclass(frozen=True)
class BatchedFigure:
    """One row of llama-batched-bench: K sequences of npp + ntg tokens."""

    npp: int
    ntg: int
    sequences: int
    seconds: float
    tokens_per_s: float
    """All tokens (prompts and generated) over the whole job's seconds."""


def absent_line(path: Path | None) -> str | None:
    """One line saying why the peer cannot run, or None when it can."""
    if path is None:
        return (
            "llama-batched-bench: not given (--batched-bench PATH); it builds from the llama.cpp "
            "that llama-cpp-python's source distribution vendors: cmake --build build --target "
            "llama-batched-bench"
        )
    if not path.is_file() or not os.access(path, os.X_OK):
        return f"llama-batched-bench: {path} is not an executable file"
    return None


def parse_rows(output: str) -> list[BatchedFigure]:
    """The result rows of llama-batched-bench's table (PP, TG, B, N_KV, then timings)."""
    figures = []
    for line in output.splitlines():
        match = _ROW.match(line.strip())
        if match is None:
            continue
        npp, ntg, sequences, _ = (int(match.group(i)) for i in range(1, 5))
        cells = [cell.strip() for cell in match.group(5).split("|")]
        # T_PP s | S_PP t/s | T_TG s | S_TG t/s | T s | S t/s
        figures.append(BatchedFigure(npp, ntg, sequences, float(cells[4]), float(cells[5])))
    return figures


@dataclass(frozen=True)
class BatchedWork:
    """What the peer is asked: K sequences of npp prompt and ntg generated tokens."""

    npp: int
    ntg: int
    sequences: tuple[int, ...]
    threads: int
    flash_attn: str = "off"
    """`off` computes attention as rulebench's engine does (replies independent of batching);
    the peer's own default, `auto`, turns flash attention on where the CPU backend has it."""


def run_batched_bench(path: Path, gguf: Path, work: BatchedWork) -> tuple[list[BatchedFigure], str]:
    """Run the peer once for every K in `work.sequences`; its rows and the command line run."""
    npp, ntg, sequences, threads = work.npp, work.ntg, work.sequences, work.threads
    context = (npp + ntg) * max(sequences) + 64
    command = [
        str(path), "-m", str(gguf), "-c", str(context), "-b", "2048", "-ub", "512",
        "-npp", str(npp), "-ntg", str(ntg), "-npl", ",".join(map(str, sequences)),
        "-t", str(threads), "-tb", str(threads), "-fa", work.flash_attn,
    ]  # fmt: skip
    library = str(path.parent)
    env = os.environ | {"LD_LIBRARY_PATH": f"{library}:{os.environ.get('LD_LIBRARY_PATH', '')}"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"llama-batched-bench failed ({done.returncode}): {' / '.join(tail)}")
    shown = " ".join(command[1:]).replace(str(gguf), gguf.name)
    return parse_rows(done.stdout + "\n" + done.stderr), f"llama-batched-bench {shown}"
