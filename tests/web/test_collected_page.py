"""The collected cases page: counts by scenario, rule, strategy and model; played again."""

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.models.scripted import ScriptedModel

from tests.report.html_page import Page
from tests.web.playground_app import LEAK, MODEL, player, playground_app, send, start


def save(client: TestClient, message: str, strategy: str, file: str) -> None:
    url = start(client)
    send(client, url, message)
    form = {"file": file, "strategy": strategy, "notes": "n"}
    assert client.post(f"{url}/save", data=form).status_code == 200


def rows(html: str, table: str) -> dict[str, tuple[int, int]]:
    """value -> (cases, broke) of one summary table."""
    found = re.search(rf'<table class="collected" id="by-{table}">(.*?)</table>', html, re.S)
    assert found, table
    cells = re.findall(
        r'<tr><td><a href="[^"]*">([^<]*)</a></td><td>(\d+)</td><td>(\d+)</td>', found.group(1)
    )
    return {value: (int(cases), int(broke)) for value, cases, broke in cells}


def test_the_summary_counts_cases_and_breaks_and_filters(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        save(client, f"{LEAK} now", "Simulation", "a.jsonl")
        save(client, "hello", "Just Ask", "a.jsonl")
        save(client, f"{LEAK} again", "Simulation", "b.jsonl")
        page = client.get("/play/collected").text
        assert "3 of 3 saved cases" in page and "2 broke a rule" in page
        assert rows(page, "strategy") == {"Simulation": (2, 2), "Just Ask": (1, 0)}
        assert rows(page, "scenario") == {"Encryption": (3, 2)}
        assert rows(page, "model") == {MODEL: (3, 2)}
        assert "rulebench run scenarios -s" in page
        filtered = client.get("/play/collected?strategy=Just+Ask").text
        assert "1 of 3 saved cases" in filtered and "0 broke" in filtered


def test_playing_the_collected_cases_again_shows_progress_then_verdicts(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        save(client, f"{LEAK} now", "Simulation", "a.jsonl")
        save(client, "hello", "Just Ask", "a.jsonl")
        started = client.post("/play/collected/run", data={"model": "scripted/echo"})
        assert started.status_code == 200 and "/play/collected/runs/" in str(started.url)
        deadline = time.monotonic() + 60
        page = started.text
        while "done:" not in page:
            assert time.monotonic() < deadline, page
            time.sleep(0.1)
            page = client.get(started.url).text
        header = ["file", "case", "scenario", "rule", "strategy", "verdict", "reason"]
        table = Page(page).table_with(header)[1:]
        # echo repeats the turn: the key never shows, both cases pass
        assert [row[5] for row in table] == ["passed", "passed"]
        assert [row[4] for row in table] == ["Simulation", "Just Ask"]
        assert "-m scripted/echo" in page
        other = TestClient(client.app, base_url=str(client.base_url))
        assert other.get(started.url).status_code == 404  # another visitor's job


def test_a_model_outside_the_allowed_list_is_refused(tmp_path: Path) -> None:
    from rulebench.web.app import create_app
    from rulebench.web.playground.config import PlaygroundConfig

    from tests.web.playground_app import model_args

    config = PlaygroundConfig(
        save_dir=tmp_path / "cases", model=MODEL, model_args=model_args(tmp_path), any_model=False
    )
    playground_app(tmp_path)  # writes the store
    app = create_app(tmp_path / "s.sqlite", playground=config)
    with player(app) as client:
        save(client, "hello", "Just Ask", "a.jsonl")
        refused = client.post("/play/collected/run", data={"model": "hf//etc"})
        assert refused.status_code == 422 and f"plays {MODEL} only" in refused.text


def test_the_command_the_page_shows_runs_the_save_folder(tmp_path: Path) -> None:
    from tests.web.test_playground import run_saved

    with player(playground_app(tmp_path)) as client:
        save(client, f"{LEAK} now", "Simulation", "a.jsonl")
        save(client, "hello", "Just Ask", "b.jsonl")
        page = client.get("/play/collected").text
    cases = tmp_path / "cases"
    assert f"rulebench run scenarios -s {cases} -m {MODEL}" in page
    results = run_saved(cases, tmp_path / "s.sqlite", tmp_path)  # the folder, as the page says
    assert sorted(results) == [("Encryption", False), ("Encryption", True)]


def test_a_job_longer_than_the_call_quota_waits_for_the_window_then_finishes(
    tmp_path: Path,
) -> None:
    from rulebench.web.playground.quotas import Quotas, VisitorLimits

    from tests.web.test_quotas import Clock

    clock = Clock()
    app = playground_app(tmp_path)
    app.state.playground.limits = VisitorLimits(Quotas(model_calls_per_minute=2), clock)
    with player(app) as client:
        for strategy in ("Simulation", "Just Ask", "Legalese"):
            save(client, f"hello {strategy}", strategy, "a.jsonl")
            clock.now_s += 61
        started = client.post("/play/collected/run", data={"model": "scripted/echo"})
        assert started.status_code == 200, started.text  # 3 calls, 2 a minute: not refused
        page = wait_for(client, str(started.url), "waiting for the call quota")
        assert "playing: 2 of 3 cases" in page
        clock.now_s += 61
        page = wait_for(client, str(started.url), "done:")
    verdicts = [
        row[5]
        for row in Page(page).table_with(
            ["file", "case", "scenario", "rule", "strategy", "verdict", "reason"]
        )[1:]
    ]
    assert verdicts == ["passed", "passed", "passed"]


def test_a_case_needing_more_calls_than_a_minute_allows_is_refused_up_front(
    tmp_path: Path,
) -> None:
    from rulebench.web.playground.quotas import Quotas, VisitorLimits

    from tests.web.test_quotas import Clock

    clock = Clock()
    app = playground_app(tmp_path)
    app.state.playground.limits = VisitorLimits(Quotas(model_calls_per_minute=1), clock)
    with player(app) as client:
        url = start(client)
        send(client, url, "hello")
        clock.now_s += 61
        send(client, url, "again")
        assert client.post(f"{url}/save", data={"file": "a.jsonl"}).status_code == 200
        clock.now_s += 61
        refused = client.post("/play/collected/run", data={"model": "scripted/echo"})
        assert refused.status_code == 429
        assert "needs 2 model calls; 1 per minute allowed" in refused.text
        opened = client.post("/play/saved/open", data={"case": f"a.jsonl/{case_id(tmp_path)}"})
        assert opened.status_code == 429
        assert "needs 2 model calls; 1 per minute allowed" in opened.text


def case_id(folder: Path) -> str:
    """The id of the only case saved in a.jsonl."""
    import json

    return str(json.loads((folder / "cases" / "a.jsonl").read_text().splitlines()[0])["id"])


def wait_for(client: TestClient, url: str, text: str) -> str:
    """The job page once it shows `text` (it reloads itself while the job runs)."""
    deadline = time.monotonic() + 60  # a hang guard, not a speed check
    page = client.get(url).text
    while text not in page:
        assert time.monotonic() < deadline, page
        time.sleep(0.05)
        page = client.get(url).text
    return page


def stalling(monkeypatch: pytest.MonkeyPatch, on_cancel: Callable[[], None]) -> list[str]:
    """scripted/echo never answers: its jobs run until cancelled; the calls asked, by model."""
    generate = ScriptedModel.generate
    asked: list[str] = []

    async def stall(
        self: ScriptedModel, messages: Sequence[Message], config: GenerateConfig
    ) -> Completion:
        if self.info.name != "echo":
            return await generate(self, messages, config)
        asked.append(self.info.name)
        try:
            await asyncio.Event().wait()
        finally:
            on_cancel()
        raise AssertionError("not reached")

    monkeypatch.setattr(ScriptedModel, "generate", stall)
    return asked


def test_running_jobs_are_never_evicted_and_a_visitor_runs_few_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulebench.web.playground import collected_runs

    stalling(monkeypatch, lambda: None)
    monkeypatch.setattr(collected_runs, "MAX_JOBS", 2)
    monkeypatch.setattr(collected_runs, "MAX_RUNNING_PER_VISITOR", 1)
    app = playground_app(tmp_path)
    with player(app) as alice, player(app) as bob, player(app) as carol:
        save(alice, "hello", "Just Ask", "a.jsonl")
        first = alice.post("/play/collected/run", data={"model": "scripted/echo"})
        assert first.status_code == 200
        again = alice.post("/play/collected/run", data={"model": "scripted/echo"})
        assert again.status_code == 429 and "1 run of collected cases at a time" in again.text
        assert bob.post("/play/collected/run", data={"model": "scripted/echo"}).status_code == 200
        full = carol.post("/play/collected/run", data={"model": "scripted/echo"})
        assert full.status_code == 429 and "2 runs of collected cases are playing" in full.text
        assert alice.get(first.url).status_code == 200  # still there, still running


def test_shutting_down_cancels_jobs_before_the_models_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = playground_app(tmp_path)
    loaded_when_cancelled: list[list[str]] = []
    pool = app.state.playground.models
    asked = stalling(monkeypatch, lambda: loaded_when_cancelled.append(pool.loaded_specs()))
    with player(app) as client:
        save(client, "hello", "Just Ask", "a.jsonl")
        started = client.post("/play/collected/run", data={"model": "scripted/echo"})
        assert started.status_code == 200
        deadline = time.monotonic() + 60  # a hang guard, not a speed check
        while not asked:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    assert len(loaded_when_cancelled) == 1 and "scripted/echo" in loaded_when_cancelled[0]
