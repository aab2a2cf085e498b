"""API keys never reach the store, logs or exports; dead servers fail in one line."""

import os
import socket
import subprocess
import sys
from pathlib import Path

from rulebench.engine.store import Store
from rulebench.testing.mock_openai import MockServerConfig, serve_in_thread

KEY = "sk-rulebench-SECRET-0123456789"


def rulebench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rulebench", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_api_key_never_appears_in_store_logs_or_exports(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, MOCKAI_API_KEY=KEY)
    with serve_in_thread(MockServerConfig(require_api_key=KEY)) as server:
        env["MOCKAI_BASE_URL"] = server.url
        run = rulebench(
            "--debug",
            "run",
            "loadtest",
            "--items",
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
        run_id = db.list_runs()[-1].id
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
