"""Freeing the embedded model while it decodes: lanes stop and free their contexts, then the model.

A stop signal cancels a run, not llama.cpp's decode loop; the process then exits with lanes
still decoding. Freed in the wrong order (the model before the lanes' contexts, or the model
while a lane reads it), that is a segmentation fault: exit 139 where 143 was promised.
"""

import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rulebench.core.errors import ModelError
from rulebench.core.messages import GenerateConfig
from rulebench.models.embedded import embedded_gguf_path
from rulebench.models.llamacpp import batch
from rulebench.models.llamacpp.batch_requests import EvalStats, GenerationRequest, LlamaSettings
from rulebench.models.llamacpp.engine import free_llama_cache, shared_engine
from rulebench.models.release import release_local_models

from tests.command import rulebench_command

pytestmark = pytest.mark.slow

LONG_REPLY = GenerateConfig(max_tokens=400, temperature=0.0)


@pytest.fixture(autouse=True)
def free_models() -> Iterator[None]:
    yield
    free_llama_cache()


def settings() -> LlamaSettings:
    return LlamaSettings(
        path=embedded_gguf_path(), n_ctx=1024, n_threads=1, n_threads_batch=1, n_batch=512,
        lanes=2, n_seq_max=2,
    )  # fmt: skip


def decoding_requests(count: int) -> list[GenerationRequest]:
    """Requests given to the shared engine, returned once each lane decodes at least one."""
    engine = shared_engine(settings())
    requests = [
        GenerationRequest(
            prompt=f"Count slowly from {i} to a thousand:",
            prefix_reuse=False,
            stats=EvalStats(),
            config=LONG_REPLY,
        )
        for i in range(count)
    ]
    for request in requests:
        engine.submit(request)
    deadline = time.monotonic() + 120
    while not all(lane.load() > 0 for lane in engine.lanes) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert all(lane.load() > 0 for lane in engine.lanes), "the lanes never started decoding"
    return requests


def test_freeing_while_decoding_stops_lanes_then_frees_contexts_then_the_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Other engines of this process (other test files' models) are freed too: events name
    # the context and the thread that freed it, so only this engine's are checked.
    events: list[tuple[int, str]] = []
    original_close = batch.BatchContext.close

    def recording_close(context: batch.BatchContext) -> None:
        import threading

        events.append((id(context), threading.current_thread().name))
        original_close(context)

    monkeypatch.setattr(batch.BatchContext, "close", recording_close)
    requests = decoding_requests(4)
    engine = shared_engine(settings())
    llm: Any = engine._llm
    original_llm_close = llm.close
    model_freed = (id(llm), "model freed")

    def recording_llm_close() -> None:
        events.append(model_freed)
        original_llm_close()

    monkeypatch.setattr(llm, "close", recording_llm_close)
    lanes = list(engine.lanes)
    threads = [lane._thread for lane in lanes]
    contexts = {id(lane._context): lane._thread.name for lane in lanes}

    release_local_models()

    assert not any(thread.is_alive() for thread in threads)
    assert not engine._thread.is_alive()
    # Each lane frees its own context on its own thread, and the model goes after them all.
    mine = [event for event in events if event[0] in contexts or event == model_freed]
    assert mine[-1] == model_freed
    assert sorted(mine[:-1]) == sorted(contexts.items())
    assert all(lane._context._ctx is None for lane in lanes)
    for request in requests:  # none passes for a whole reply
        with pytest.raises(ModelError, match="closed"):
            request.future.result(timeout=5)


@pytest.mark.subprocess
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGTERM])
def test_a_run_stopped_mid_decode_exits_with_the_signals_code(
    how: signal.Signals, tmp_path: Path
) -> None:
    # Before the models were freed in order, such stops often ended in a segmentation fault.
    store = tmp_path / "store.sqlite"
    process = subprocess.Popen(
        rulebench_command("run", "inferential", "--per-group", "10", "--store", str(store)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not _has_a_run(store) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(3.0)  # the model loads and its lanes decode the first prompts
    process.send_signal(how)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == {signal.SIGTERM: 143, signal.SIGINT: 130}[how], stderr
    assert "Traceback" not in stderr


def _has_a_run(store: Path) -> bool:
    if not store.exists():
        return False
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            return bool(db.execute("SELECT count(*) FROM runs").fetchone()[0])
    except sqlite3.Error:
        return False


def test_a_lane_never_outlives_its_model_even_when_freed_twice() -> None:
    decoding_requests(2)
    free_llama_cache()
    free_llama_cache()  # nothing left: a second free (atexit after the CLI's own) is a no-op
    assert not [name for name in _live_thread_names() if name.startswith("llamacpp:")]


def _live_thread_names() -> list[str]:
    import threading

    return [thread.name for thread in threading.enumerate()]
