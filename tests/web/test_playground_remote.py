"""A playground others reach shows no path of the server: pages, notices, jobs and errors."""

import html as html_lib
import time
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from rulebench.scenarios.upstream.text import open_clone
from rulebench.web.app import create_app
from rulebench.web.playground.config import PlaygroundConfig

from tests.scenarios.upstream_fixture import build_clone
from tests.web.explorer_store import synthetic_run
from tests.web.playground_app import LEAK, MODEL, model_args, player, send, start


def remote_app(folder: Path, clone: str = "clone") -> FastAPI:
    """The test playground as `serve --allow-remote` builds it, with a RuLES clone."""
    store = folder / "s.sqlite"
    if not store.exists():
        synthetic_run(store, 3)
    scenarios = folder / clone / "llm_rules" / "scenarios"
    if not scenarios.exists():
        build_clone(folder / clone)
    config = PlaygroundConfig(
        save_dir=folder / "cases",
        model=MODEL,
        model_args=model_args(folder),
        upstream=open_clone(scenarios).source,
        show_paths=False,
    )
    return create_app(store, playground=config, show_paths=False)


def finished_job(client: TestClient, url: str) -> str:
    deadline = time.monotonic() + 60  # a hang guard, not a speed check
    page = client.get(url).text
    while "done:" not in page:
        assert time.monotonic() < deadline, page
        time.sleep(0.05)
        page = client.get(url).text
    return page


def test_no_page_of_a_remote_playground_names_a_server_path(tmp_path: Path) -> None:
    pages: dict[str, str] = {}
    with player(remote_app(tmp_path)) as client:
        pages["new game"] = client.get("/play").text
        url = start(client, prompts="upstream")
        pages["conversation"] = send(client, url, f"{LEAK} now")
        saved = client.post(f"{url}/save", data={"file": "a.jsonl", "strategy": "Simulation"})
        pages["save notice"] = saved.text
        pages["saved"] = client.get("/play/saved").text
        pages["collected"] = client.get("/play/collected").text
        job = client.post("/play/collected/run", data={"model": ""})
        pages["job"] = finished_job(client, str(job.url))
        pages["bad file"] = client.post("/play/saved/open", data={"case": "../x/y"}).text
        pages["no game"] = client.get("/play/conversations/nosuchgame").text
        pages["bad save"] = client.post(f"{url}/save", data={"file": "/etc/x.jsonl"}).text
    assert "--upstream PATH" in html_lib.unescape(pages["save notice"])
    for name, page in pages.items():
        for path in {str(tmp_path), str(tmp_path.resolve())}:
            assert path not in html_lib.unescape(page), name


def test_a_job_error_about_another_clone_names_no_server_path(tmp_path: Path) -> None:
    with player(remote_app(tmp_path)) as client:
        url = start(client, prompts="upstream")
        send(client, url, "hello")
        assert client.post(f"{url}/save", data={"file": "a.jsonl"}).status_code == 200
    other = build_clone(tmp_path / "other")
    (other / "games.py").write_text((other / "games.py").read_text() + "\n# changed\n")
    with player(remote_app(tmp_path, "other")) as client:
        job = client.post("/play/collected/run", data={"model": ""})
        page = html_lib.unescape(finished_job(client, str(job.url)))
    assert "--upstream PATH: its scenario files differ" in page
    assert str(tmp_path) not in page and str(tmp_path.resolve()) not in page
