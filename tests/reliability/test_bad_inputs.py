"""Every bad input is one clear line and exit status 1: never a traceback, never a silent run.

Each case was once a traceback (ModuleNotFoundError, ValueError from urlsplit, OverflowError,
aiohttp's "Cannot combine AUTHORIZATION header...") or a run that "completed" wrongly (95 item
errors and exit 0, a 0-item run). They go through the real console entry point in a
subprocess, as a user would meet them.
"""

import json
import os
import shutil
from pathlib import Path

import pytest

from rulebench.checks.loadtest import LoadTestTask
from rulebench.core.text import surrogate_warning
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.base import BackendOptions
from rulebench.models.registry import create_model
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig, serve_in_thread

from tests.command import assert_one_line_error, rulebench

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

FIXTURES = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"
OPENAI = ("-m", "openai-api/local/x")


@pytest.fixture
def store(tmp_path: Path) -> str:
    """A store path for the subprocess (the conftest fixture opens one in this process)."""
    return str(tmp_path / "s.sqlite")


def no_runs(store: str) -> bool:
    if not Path(store).exists():
        return True
    with Store(Path(store)) as db:
        return db.list_runs() == []


def test_a_backend_without_its_library_is_an_install_hint(store: str) -> None:
    # torch is imported only inside the backend, after the registry's import guard.
    hide_torch = "import sys; sys.modules['torch'] = None"
    result = rulebench("run", "smoke", "-m", "hf/x", "--store", store, preamble=hide_torch)
    assert_one_line_error(result, "hf backend needs torch", "pip install 'rulebench[hf]'")
    assert no_runs(store)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1", "Invalid IPv6 URL"),
        ("http://127.0.0.1:99999/v1", "Port out of range"),
    ],
)
def test_a_malformed_base_url_names_the_option(store: str, url: str, problem: str) -> None:
    result = rulebench("run", "smoke", *OPENAI, "--base-url", url, "--store", store)
    assert_one_line_error(result, "--base-url is not a valid URL", problem)
    assert no_runs(store)


def test_url_credentials_and_an_api_key_together_are_refused(store: str) -> None:
    env = dict(os.environ, LOCAL_API_KEY="sk-local-0000")
    url = "http://user:hunter2@127.0.0.1:9/v1"
    result = rulebench("run", "smoke", *OPENAI, "--base-url", url, "--store", store, env=env)
    last = assert_one_line_error(result, "has credentials", "LOCAL_API_KEY is set")
    assert "hunter2" not in result.stderr and "sk-local-0000" not in last
    assert no_runs(store)


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        (("--temperature", "inf"), "--temperature: Input should be a finite number"),
        (("--temperature", "1000"), "--temperature: Input should be less than or equal to 100"),
        (("--seed", str(2**64)), "--seed: Input should be less than or equal to"),
        (("-M", "timeout_s=inf"), "-M timeout_s: Input should be a finite number"),
        (
            ("-M", "max_backoff_s=inf", "-M", "initial_backoff_s=1e308"),
            "-M initial_backoff_s: Input should be less than or equal to 60",
        ),
    ],
)
def test_non_finite_and_absurd_numbers_are_refused(
    store: str, settings: tuple[str, ...], problem: str
) -> None:
    url = "http://127.0.0.1:9/v1"
    result = rulebench("run", "smoke", *OPENAI, "--base-url", url, *settings, "--store", store)
    assert_one_line_error(result, problem)
    assert no_runs(store)


def test_an_unknown_system_message_fails_before_any_item_runs(store: str) -> None:
    result = rulebench(
        "run", "scenarios", "-m", "scripted/echo", "--system-message", "bogus", "--store", store
    )
    assert_one_line_error(result, "unknown system message 'bogus'", "helpful, praise")
    assert no_runs(store)


def test_an_empty_scenarios_file_is_a_data_error(store: str, tmp_path: Path) -> None:
    empty = tmp_path / "basic" / "Encryption.jsonl"
    empty.parent.mkdir()
    empty.write_text("\n", encoding="utf-8")
    result = rulebench(
        "run", "scenarios", "-s", str(empty), "-m", "scripted/echo", "--store", store
    )
    assert_one_line_error(result, "basic/Encryption.jsonl: no test cases")


def test_non_finite_scenario_params_are_a_data_error_naming_file_and_line(
    store: str, tmp_path: Path
) -> None:
    path = tmp_path / "basic" / "Encryption.jsonl"
    path.parent.mkdir()
    good = {"params": {"secret": "opal"}, "messages": [{"role": "user", "content": "key?"}]}
    path.write_text(json.dumps(good) + "\n" + json.dumps(good).replace('"opal"', "1e400") + "\n")
    result = rulebench("run", "scenarios", "-s", str(path), "-m", "scripted/echo", "--store", store)
    assert_one_line_error(result, "basic/Encryption.jsonl:2: 1e400 at column", "too large")


def test_an_empty_official_data_file_is_a_data_error(store: str, tmp_path: Path) -> None:
    root = tmp_path / "data"
    shutil.copytree(FIXTURES, root)
    (root / "deer" / "test_data.json").write_text("[]", encoding="utf-8")
    result = rulebench(
        "run", "inferential", "-t", "deer", "--data-root", str(root), "-m", "scripted/echo",
        "--store", store,
    )  # fmt: skip
    assert_one_line_error(result, "deer/test_data.json: no records")


async def test_replies_ending_in_half_an_emoji_are_stored(tmp_path: Path) -> None:
    # A lone surrogate decoded from "\ud83d" cannot be encoded as UTF-8: it once killed the
    # SQLite writer. It is repaired where it enters, and the repair is recorded.
    config = MockServerConfig(fault_rate=1.0, fault_kinds=("surrogate",))
    async with MockOpenAIServer(config) as server:
        model = create_model("openai-api/mock/echo", BackendOptions(base_url=server.url))
        spec = RunSpec(task="loadtest", model="openai-api/mock/echo")
        with Store(tmp_path / "s.sqlite") as db:
            report = await Runner(db).run(LoadTestTask(n=5), model, spec)
            await model.aclose()
            results = list(db.iter_results(report.run.id))
    assert [r.status for r in results] == ["ok"] * 5
    assert all(r.reply and r.reply.endswith("\ufffd") for r in results)
    assert all(r.warnings == (surrogate_warning(1, "reply"),) for r in results)


@pytest.mark.parametrize("status", ["400", "404"])
def test_a_server_refusing_every_request_stops_the_run_early(store: str, status: str) -> None:
    config = MockServerConfig(fault_rate=1.0, fault_kinds=(status,))
    with serve_in_thread(config) as server:
        result = rulebench(
            "run", "loadtest", "-n", "100", "-c", "1", *OPENAI, "--base-url", server.url,
            "--store", store,
        )  # fmt: skip
        requests = len(server.requests)
    assert_one_line_error(result, "the first 5 items all failed the same way", status)
    assert requests == 5  # not 100
    with Store(Path(store), readonly=True) as db:
        [run] = db.list_runs()
        assert run.status == "failed" and "failed the same way" in str(run.notes["reason"])
