"""What the bench scripts share: timing a model's replies and printing aligned tables.

Imported by sibling scripts run as `python bench/<script>.py` (their folder is on sys.path).
"""

import asyncio
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import Model


async def timed(model: Model, conversations: Sequence[list[Message]], config: GenerateConfig,
                together: bool) -> tuple[float, int, int]:  # fmt: skip
    """Wall seconds, prompt tokens and generated tokens for the conversations.

    together: all sent at once (the backend may batch them); else one after another.
    """
    start = time.perf_counter()
    if together:
        replies = await asyncio.gather(*(model.generate(c, config) for c in conversations))
    else:
        replies = [await model.generate(c, config) for c in conversations]
    elapsed = time.perf_counter() - start
    prompt = sum(r.usage.prompt_tokens for r in replies)
    return elapsed, prompt, sum(r.usage.completion_tokens for r in replies)


def print_table(rows: Sequence[tuple[str, ...]]) -> None:
    """Print rows of cells as left-aligned columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def median_s(work: Callable[[], object], repeats: int) -> float:
    """Median wall seconds of `work` over `repeats` tries (after one warm-up)."""
    work()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def on_cpu(cpu: int | None) -> Callable[[], None] | None:
    """A preexec_fn that keeps a child process on one CPU (None: wherever the system puts it)."""
    if cpu is None:
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


def start_mock_server(
    latency_ms: float = 0.0, cpu: int | None = None
) -> tuple[subprocess.Popen[str], str]:
    """The mock OpenAI server in its own process (on `cpu` if given); it and its base URL."""
    command = [sys.executable, "-m", "rulebench.testing.mock_openai", "--port", "0"]
    server = subprocess.Popen(
        [*command, "--latency-ms", str(latency_ms)],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=on_cpu(cpu),
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def machine() -> str:
    """The CPU model and count and the system, for the line a bench's figures are cited with."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]  # fmt: skip
        model = names[0] if names else model
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now, for a server the bench starts."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
