"""Whole runs against an o-series-style server: what the stored run and its closing lines say.

Real CLI, real store; the server is the mock in its o-series mode (refuses `max_tokens` and
temperature 0, sends no thinking, only its token count).
"""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store
from rulebench.engine.summary import summarize
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig, serve_in_thread

runner = CliRunner()
# 6 words as the mock counts them, the 5 between the tags thinking.
THINKING_REPLY = "<think>a b c d e</think> Paris"


def _think(body: dict[str, Any]) -> str:
    return THINKING_REPLY


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RULEBENCH_PRICES"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def o_series() -> Iterator[MockOpenAIServer]:
    config = MockServerConfig(reasoning_api=True, thinking="hidden")
    with serve_in_thread(config, reply_fn=_think) as server:
        yield server


def _run(server: MockOpenAIServer, store: Path, model: str, *args: str) -> Result:
    command = ["run", "smoke", "-m", model, "--base-url", server.url, "--store", str(store)]
    return runner.invoke(app, [*command, *args])


def _only_run(store: Path) -> Any:
    with Store(store, readonly=True) as db:
        [run] = db.list_runs(5)
        results = list(db.iter_results(run.id))
        [total] = summarize(db.tally_results(run.id), grouped=False)
    return run, results, total


def test_a_refused_temperature_is_stated_in_results_notes_and_closing_lines(
    o_series: MockOpenAIServer, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    result = _run(o_series, store, "openai-api/mock/reasoner")  # temperature 0, the default
    assert result.exit_code == 0, result.output
    run, results, _ = _only_run(store)
    assert run.status == "completed"
    assert results and all(
        any(w.startswith("temperature 0 was not sent") for w in r.warnings) for r in results
    )
    notes = run.notes["backend_notes"]
    assert [n for n in notes if "refuses temperature 0" in n]
    assert [n for n in notes if "max_completion_tokens" in n]
    assert [line for line in result.stderr.splitlines() if "refuses temperature 0" in line]


def test_replies_out_of_tokens_while_thinking_get_a_closing_line(
    o_series: MockOpenAIServer, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    result = _run(o_series, store, "openai/o3", "--temperature", "1", "--max-tokens", "2")
    assert result.exit_code == 0, result.output
    _, results, total = _only_run(store)
    assert total.reasoning_unfinished == len(results) > 0
    [line] = [line for line in result.stderr.splitlines() if "while thinking" in line]
    assert f"{len(results)} replies ran out of tokens" in line
    assert "raise --max-tokens (now 2)" in line


def test_a_run_with_room_to_think_has_no_such_line(
    o_series: MockOpenAIServer, tmp_path: Path
) -> None:
    result = _run(o_series, tmp_path / "s.sqlite", "openai/o3", "--temperature", "1")
    assert result.exit_code == 0, result.output
    assert "while thinking" not in result.stderr
    assert "refuses" not in result.stderr


def test_reasoning_tokens_are_costed_once_as_output(
    o_series: MockOpenAIServer, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    assert _run(o_series, store, "openai/o3", "--temperature", "1").exit_code == 0
    run, _, total = _only_run(store)
    # The mock reports 6 completion tokens per reply, 5 of them thinking (OpenAI's accounting).
    assert total.reasoning_tokens * 6 == total.completion_tokens * 5 > 0
    args = ["runs", "show", run.id, "--store", str(store), "--json"]
    shown = runner.invoke(app, [*args, "--price-in", "0", "--price-out", "1000000"])
    assert shown.exit_code == 0, shown.output
    # $1 per output token: the cost is the completion tokens, thinking counted once.
    assert json.loads(shown.stdout)["summary"][-1]["cost_usd"] == total.completion_tokens


def test_thinking_switch_for_openais_api_is_one_error_before_any_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")
    store = tmp_path / "s.sqlite"
    command = ["run", "smoke", "-m", "openai/o3", "--thinking", "on", "--store", str(store)]
    result = runner.invoke(app, command)
    assert result.exit_code == 1
    # The entry point prints a RulebenchError as one red line; in-process it is the exception.
    assert isinstance(result.exception, ConfigError)
    said = str(result.exception)
    assert "\n" not in said
    assert "--thinking is sent as chat_template_kwargs" in said and "--reasoning-effort" in said
    with Store(store, readonly=True) as db:
        assert db.list_runs(5) == []


def test_cached_replies_cut_while_thinking_stay_flagged(
    o_series: MockOpenAIServer, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    args = ("--temperature", "1", "--max-tokens", "2")
    assert _run(o_series, store, "openai/o3", *args).exit_code == 0
    sent = len(o_series.requests)
    again = _run(o_series, store, "openai/o3", *args)
    assert again.exit_code == 0, again.output
    assert len(o_series.requests) == sent  # every reply came from the cache
    with Store(store, readonly=True) as db:
        newest = db.list_runs(5)[0]
        [total] = summarize(db.tally_results(newest.id), grouped=False)
    # No thinking text to find a tag in: the flag the backend set must survive the cache.
    assert total.cache_hits > 0 and total.reasoning_unfinished == total.items
    assert "ran out of tokens while thinking" in again.stderr
