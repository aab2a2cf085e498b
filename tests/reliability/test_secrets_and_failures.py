"""API keys never reach the store, logs or exports; dead servers fail in one line."""

import os
import socket
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store
from rulebench.testing.mock_server import MockServerConfig, serve_in_thread

from tests.command import rulebench

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

KEY = "sk-rulebench-SECRET-0123456789"


def test_api_key_never_appears_in_store_logs_or_exports(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, MOCKAI_API_KEY=KEY)
    with serve_in_thread(MockServerConfig(require_api_key=KEY)) as server:
        env["MOCKAI_BASE_URL"] = server.url
        run = rulebench(
            "--debug",
            "run",
            "loadtest",
            "-n",
            "20",
            "-m",
            "openai-api/mockai/echo",
            "--store",
            str(store),
            env=env,
        )
        assert run.returncode == 0, run.stderr
        assert all(r["has_auth"] for r in server.requests)  # the key was really used
        wrong = dict(env, MOCKAI_API_KEY=KEY + "-wrong")
        refused = rulebench(
            "--debug",
            "run",
            "smoke",
            "-m",
            "openai-api/mockai/echo",
            "-M",
            "max_retries=0",
            "--store",
            str(store),
            env=wrong,
        )
    with Store(store) as db:
        [run_id] = [r.id for r in db.list_runs() if r.task == "loadtest"]
        assert db.count_results(run_id) == {"ok": 20, "error": 0}
    jsonl, csv = tmp_path / "r.jsonl", tmp_path / "r.csv"
    for out in (jsonl, csv):
        assert (
            rulebench("runs", "export", run_id, "-o", str(out), "--store", str(store)).returncode
            == 0
        )
    shown = rulebench("runs", "show", run_id, "--json", "--store", str(store))
    texts = [
        run.stdout,
        run.stderr,
        refused.stdout,
        refused.stderr,
        shown.stdout,
        jsonl.read_text(),
        csv.read_text(),
    ]
    blobs = [p.read_bytes() for p in tmp_path.glob("s.sqlite*")]
    assert "401" in refused.stderr  # the refused run did talk about the failure...
    assert not any(KEY in text for text in texts)  # ...without ever printing the key
    assert not any(KEY.encode() in blob for blob in blobs)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_server_is_one_line_and_leaves_no_run(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = rulebench(
        "run", "smoke", "-m", "openai-api/local/x", "--base-url", url, "--store", str(store)
    )
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "127.0.0.1" in last and "reach" in last, result.stderr
    with Store(store) as db:
        assert db.list_runs() == []


def test_a_key_echoed_in_a_malformed_reply_reaches_no_file_or_log(tmp_path: Path) -> None:
    # The malformed-200 path once kept the server's text as it was: a body echoing the key
    # landed in the item's error, `runs show`, exports and --debug logs.
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, MOCKAI_API_KEY=KEY)
    config = MockServerConfig(require_api_key=KEY, fault_rate=1.0, fault_kinds=("malformedkey",))
    with serve_in_thread(config) as server:
        env["MOCKAI_BASE_URL"] = server.url
        run = rulebench(
            "--debug", "run", "loadtest", "-n", "5", "-m", "openai-api/mockai/echo",
            "-M", "max_retries=1", "-M", "initial_backoff_s=0.01", "--store", str(store),
            env=env,
        )  # fmt: skip
        assert server.requests and all(r["fault"] == "malformedkey" for r in server.requests)
    with Store(store) as db:
        [stored] = db.list_runs()
        assert db.count_results(stored.id)["ok"] == 0
        errors = [str(r.error) for r in db.iter_results(stored.id)]
    assert errors and all("malformed reply" in e and "Bearer ***" in e for e in errors), errors
    jsonl, csv = tmp_path / "r.jsonl", tmp_path / "r.csv"
    for out in (jsonl, csv):
        rulebench("runs", "export", stored.id, "-o", str(out), "--store", str(store))
    shown = rulebench("runs", "show", stored.id, "--json", "--store", str(store))
    texts = [run.stdout, run.stderr, shown.stdout, jsonl.read_text(), csv.read_text()]
    assert "Bearer ***" in jsonl.read_text()  # the errors were exported...
    assert not any(KEY in text for text in texts)  # ...without the key
    assert not any(KEY.encode() in p.read_bytes() for p in tmp_path.glob("s.sqlite*"))


def test_url_credentials_are_never_stored_or_shown_and_a_resume_asks_for_them(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.sqlite"
    password = "hunter2-URL-PASSWORD"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    with serve_in_thread(MockServerConfig()) as server:
        url = server.url.replace("http://", f"http://alice:{password}@")
        run = rulebench(
            "run", "smoke", "-m", "openai-api/mock/echo", "--base-url", url, "--store", str(store),
            env=env,
        )  # fmt: skip
        assert run.returncode in (0, 1), run.stderr  # the echo may get answers wrong
        with Store(store) as db:
            [stored] = db.list_runs()
            assert stored.config["base_url"] == server.url.replace("http://", "http://***@")
            db._db.execute("UPDATE runs SET status = 'interrupted'")
            db._db.execute("DELETE FROM results")
        shown = [
            rulebench("runs", "list", "--json", "--store", str(store), env=env),
            rulebench("runs", "show", stored.id, "--store", str(store), env=env),
        ]
        without = rulebench("run", "--resume", stored.id, "--store", str(store), env=env)
        again = rulebench(
            "run", "--resume", stored.id, "--base-url", url, "--store", str(store), env=env
        )
    for result in shown:
        assert result.returncode == 0 and password not in result.stdout + result.stderr
    assert without.returncode == 1
    assert "had credentials, which are never stored: pass --base-url again" in without.stderr
    assert again.returncode in (0, 1) and "finished earlier" not in again.stderr, again.stderr
    with Store(store) as db:
        assert sum(db.count_results(stored.id).values()) == 6
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert password.encode() not in path.read_bytes(), path


def test_a_key_in_the_base_url_query_reaches_no_line_store_or_export(tmp_path: Path) -> None:
    # `--base-url http://HOST/v1?api_key=KEY` once put the key in the error line, the run's
    # config, its error rows, `runs show` and every export, and sent requests to
    # `/v1?api_key=KEY/chat/completions`.
    store = tmp_path / "s.sqlite"
    secret = "sk-query-SECRET-5e8d1c27b9"
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    dead_url = f"http://127.0.0.1:{free_port()}/v1"
    spec = ["run", "smoke", "-m", "openai-api/mock/echo", "--store", str(store)]
    dead = rulebench(*spec, "--base-url", f"{dead_url}?api_key={secret}", env=env)
    config = MockServerConfig(fault_rate=1.0, fault_kinds=("500",))
    with serve_in_thread(config) as server:
        url = f"{server.url}?api_key={secret}"
        run = rulebench("--debug", *spec, "--base-url", url, "-M", "max_retries=0", env=env)
        paths = {r["path"] for r in server.requests}
    assert paths == {f"/v1/chat/completions?api_key={secret}"}  # the query kept, after the path
    assert dead.returncode == 1
    assert f"{dead_url}/models?api_key=***" in dead.stderr.strip().splitlines()[-1], dead.stderr
    with Store(store) as db:
        [stored] = db.list_runs()
        errors = [str(r.error) for r in db.iter_results(stored.id)]
    assert stored.config["base_url"] == f"{server.url}?api_key=***"
    assert errors and all(f"({server.url}?api_key=***)" in e for e in errors), errors
    outputs = [tmp_path / "r.jsonl", tmp_path / "r.csv", tmp_path / "r.json"]
    for out in outputs:
        form = ["-f", "inspect"] if out.suffix == ".json" else []
        exported = rulebench(
            "runs", "export", stored.id, *form, "-o", str(out), "--store", str(store)
        )
        assert exported.returncode == 0, exported.stderr
    shown = [
        rulebench("runs", "show", stored.id, *form, "--store", str(store), env=env)
        for form in ([], ["--json"])
    ]
    assert all(result.returncode == 0 for result in shown)
    texts = [dead.stderr, run.stdout, run.stderr] + [r.stdout + r.stderr for r in shown]
    assert "api_key=***" in shown[1].stdout and "api_key=***" in outputs[0].read_text()
    assert not [text for text in texts if secret in text]
    for path in tmp_path.rglob("*"):  # the store, its -wal and -shm, and the exports
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
