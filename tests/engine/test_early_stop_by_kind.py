"""The early stop compares failures by their kind, not by error texts that quote the reply.

A server whose every reply was invalid UTF-8 once had each of 50 items tried 7 times: every
error text held that item's reply body, so no two looked alike and the run never stopped.
"""

from pathlib import Path

import pytest

from rulebench.checks.loadtest import LoadTestTask
from rulebench.core.errors import ModelError
from rulebench.engine.runner import Runner, RunSpec, failure_kind
from rulebench.engine.store.database import Store
from rulebench.models.base import BackendOptions
from rulebench.models.registry import create_model
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

FAST_RETRIES = {"max_retries": "2", "initial_backoff_s": "0", "max_backoff_s": "0"}


async def test_invalid_utf8_replies_stop_the_run_after_the_first_few_items(tmp_path: Path) -> None:
    config = MockServerConfig(fault_rate=1.0, fault_kinds=("badutf8",))
    async with MockOpenAIServer(config) as server:
        options = BackendOptions(base_url=server.url, args=FAST_RETRIES)
        model = create_model("openai-api/mock/echo", options)
        spec = RunSpec(task="loadtest", model="openai-api/mock/echo", concurrency=1)
        with Store(tmp_path / "s.sqlite") as store:
            with pytest.raises(ModelError, match="first 5 items all failed the same way"):
                await Runner(store).run(LoadTestTask(n=50), model, spec)
            [run] = store.list_runs()
            errors = [r.error or "" for r in store.iter_results(run.id)]
        await model.aclose()
    assert len(server.requests) == 5 * 3  # 5 items, 3 attempts each; not 50 items
    assert len(set(errors)) == 5  # the texts differ: each quotes its own reply
    assert all("malformed reply" in error for error in errors)
    assert run.status == "failed" and "failed the same way" in str(run.notes["reason"])


def test_a_failure_kind_leaves_out_what_varies() -> None:
    said = "m: malformed reply after 3 attempts; the server said: "
    first = ModelError(said + "abc", "malformed reply")
    second = ModelError(said + "xyz", "malformed reply")
    assert failure_kind(first, str(first)) == failure_kind(second, str(second))
    assert failure_kind(first, str(first)) != failure_kind(ModelError("m", "400 Bad Request"), "m")


def test_without_a_kind_the_error_text_is_the_kind() -> None:
    assert failure_kind(ValueError("x"), "internal error: ValueError: x") == (
        "internal error: ValueError: x"
    )
