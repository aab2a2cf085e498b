"""A run on a served model says, at its end, the concurrency it found and what the server cached."""

from pathlib import Path

from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.testing.mock_server import MockServerConfig, serve_in_thread

runner = CliRunner()


def run_smoke(tmp_path: Path, url: str, *args: str) -> str:
    command = ["run", "smoke", "-m", "openai-api/mock/echo", "--base-url", url, "--no-cache"]
    result = runner.invoke(app, [*command, "--store", str(tmp_path / "s.sqlite"), *args])
    assert result.exit_code == 0, result.output
    return result.stderr


def test_the_found_concurrency_and_the_servers_cache_are_printed(tmp_path: Path) -> None:
    with serve_in_thread(MockServerConfig(prefix_cache="timings")) as server:
        printed = run_smoke(tmp_path, server.url)
    assert "note: adaptive: 4 at the start" in " ".join(printed.split())
    assert "server prompt cache: " in printed


def test_a_given_concurrency_prints_no_found_one(tmp_path: Path) -> None:
    with serve_in_thread() as server:
        printed = run_smoke(tmp_path, server.url, "-c", "3")
    assert "adaptive:" not in printed
    assert "server prompt cache" not in printed  # this server reports no cache
