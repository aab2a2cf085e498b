"""The playground's wording choice: upstream's text only from the clone the server was given."""

import html as html_lib
import json
from pathlib import Path

from fastapi import FastAPI

from rulebench.scenarios.upstream.text import open_clone
from rulebench.web.app import create_app
from rulebench.web.playground.config import PlaygroundConfig

from tests.report.html_page import Page
from tests.scenarios.upstream_fixture import HIDDEN, build_clone, template
from tests.web.explorer_store import synthetic_run
from tests.web.playground_app import MODEL, model_args, player, playground_app, send, start


def _app_with_clone(folder: Path) -> FastAPI:
    store = folder / "s.sqlite"
    synthetic_run(store, 3)
    source = open_clone(build_clone(folder / "clone")).source
    config = PlaygroundConfig(
        save_dir=folder / "cases", model=MODEL, model_args=model_args(folder), upstream=source
    )
    return create_app(store, playground=config)


def test_a_game_in_upstream_wording_shows_the_clone_redacted_text(tmp_path: Path) -> None:
    with player(_app_with_clone(tmp_path)) as client:
        form = client.get("/play").text
        assert "clone at commit" in form and "disabled" not in form
        url = start(client, prompts="upstream")
        page = send(client, url, "hello")
    text = "".join(Page(page).text)
    assert template("Encryption").format(secret=HIDDEN).splitlines()[0] in text
    assert "prompts: upstream (clone at commit" in html_lib.unescape(page)


def test_our_wording_stays_the_default(tmp_path: Path) -> None:
    with player(_app_with_clone(tmp_path)) as client:
        page = send(client, start(client), "hello")
    assert "prompts: rulebench" in page and HIDDEN not in html_lib.unescape(page)


def test_without_a_clone_upstream_wording_is_offered_disabled_and_refused(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        form = client.get("/play").text
        # A visitor cannot point the server at a folder: only `serve --upstream` names one.
        fields = {"prompts": "upstream", "upstream": str(tmp_path), "seed": "1"}
        response = client.post("/play", data={"scenario": "Encryption", "model": ""} | fields)
    assert "disabled" in form and "--upstream PATH" in form
    assert response.status_code == 422
    assert "rulebench serve --upstream PATH" in html_lib.unescape(response.text)


def test_a_saved_upstream_game_says_how_to_replay_it_in_that_wording(tmp_path: Path) -> None:
    with player(_app_with_clone(tmp_path)) as client:
        url = start(client, prompts="upstream")
        send(client, url, "hello")
        saved = client.post(f"{url}/save", data={"file": ""})
    assert saved.status_code == 200
    folder = (tmp_path / "clone" / "llm_rules" / "scenarios").resolve()
    notice = html_lib.unescape(saved.text)
    assert f"-m scripted/rules --upstream {folder}" in notice
    [row] = [
        json.loads(line)
        for line in (tmp_path / "cases" / "Encryption.jsonl").read_text().splitlines()
    ]
    protocol = row["played"]["protocol"]
    assert protocol["prompts"] == "upstream"
    assert protocol["upstream"]["files_sha256"] == open_clone(folder).source.files_sha256
