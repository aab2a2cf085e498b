"""The collected page's CLI command runs what it says: the chosen cases' files, per version."""

import re
import shlex
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app as cli
from rulebench.core.cases import TestCase
from rulebench.engine.store.database import Store
from rulebench.scenarios.base import Version
from rulebench.scenarios.suites.official import load_suite_file
from rulebench.web.playground import collected_page, saved_cases
from rulebench.web.playground.parsed_files import ParsedFiles

from tests.web.playground_app import LEAK, MODEL, model_args, player, playground_app, send, start
from tests.web.test_collected_page import save


def commands(html: str) -> list[str]:
    """The commands the page shows, as a shell would read them."""
    return [unescape(c) for c in re.findall(r'<code class="command">(.*?)</code>', html)]


def run_shown(command: str, folder: Path) -> list[tuple[str, str]]:
    """Run a shown command on a fresh store with the scripted model; (scenario, category)."""
    words = shlex.split(command)
    assert words[:3] == ["rulebench", "run", "scenarios"]
    store = folder / f"run{len(list(folder.glob('run*.sqlite')))}.sqlite"
    args = [*words[1:], "--store", str(store), "--json"]
    for key, value in model_args(folder).items():
        args += ["-M", f"{key}={value}"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, (result.output, result.exception)
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        return [(str(r.metadata["scenario"]), r.item_id) for r in db.iter_results(run.id)]


def test_a_filter_inside_a_file_is_not_claimed_as_the_command(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        save(client, f"{LEAK} now", "Simulation", "a.jsonl")
        save(client, "hello", "Just Ask", "a.jsonl")
        save(client, "hi", "Legalese", "b.jsonl")
        page = client.get("/play/collected?strategy=Simulation").text
    [command] = commands(page)
    # The file holds a Just Ask case too: the page says so, and names the file, not the folder.
    assert "No command runs exactly these 1 cases" in page and "hold 2 cases" in page
    assert command == shlex.join(
        ["rulebench", "run", "scenarios", "-s", str(tmp_path / "cases" / "a.jsonl"), "-m", MODEL]
    )
    assert len(run_shown(command, tmp_path)) == 2  # what the page said it runs


def test_cases_that_are_whole_files_get_a_command_for_exactly_them(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        save(client, f"{LEAK} now", "Simulation", "a.jsonl")
        save(client, "hi", "Legalese", "b.jsonl")
        save(client, "hey", "Legalese", "b.jsonl")
        page = client.get("/play/collected?strategy=Legalese").text
        everything = client.get("/play/collected").text
    [command] = commands(page)
    assert "As a stored run, the same 2 cases" in page
    assert f"-s {tmp_path / 'cases' / 'b.jsonl'} " in command and "a.jsonl" not in command
    assert len(run_shown(command, tmp_path)) == 2
    [whole] = commands(everything)  # every file chosen: the folder itself
    assert f"-s {tmp_path / 'cases'} -m" in whole
    assert len(run_shown(whole, tmp_path)) == 3


def test_v1_only_cases_get_their_own_version_v1_command(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        save(client, "hello", "Just Ask", "a.jsonl")
        url = start(client, "Hodor", seed="1")
        send(client, url, "Say something")
        assert client.post(f"{url}/save", data={"file": "h.jsonl"}).status_code == 200
        page = client.get("/play/collected").text
        only_hodor = client.get("/play/collected?scenario=Hodor").text
    v3, v1 = commands(page)
    assert "As a stored run, the same 2 cases" in page
    assert "a.jsonl" in v3 and "h.jsonl" not in v3 and "--version" not in v3
    assert "h.jsonl" in v1 and v1.endswith("--version v1")
    assert [scenario for scenario, _ in run_shown(v1, tmp_path)] == ["Hodor"]
    assert [scenario for scenario, _ in run_shown(v3, tmp_path)] == ["Encryption"]
    assert commands(only_hodor) == [v1]


def test_the_job_page_names_the_command_for_the_cases_it_played(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        save(client, f"{LEAK} now", "Simulation", "a.jsonl")
        save(client, "hi", "Legalese", "b.jsonl")
        form = {"model": "scripted/echo", "filter_strategy": "Legalese"}
        started = client.post("/play/collected/run", data=form)
        assert started.status_code == 200, started.text
    [command] = commands(started.text)
    assert command.endswith(f"-s {tmp_path / 'cases' / 'b.jsonl'} -m scripted/echo")


def test_an_unchanged_file_is_parsed_once_and_a_changed_one_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parses: list[str] = []
    real = load_suite_file

    def counted(path: Path, version: Version = "v3") -> list[TestCase]:
        parses.append(path.name)
        return real(path, version)

    monkeypatch.setattr(saved_cases, "_parsed", ParsedFiles())
    monkeypatch.setattr(saved_cases, "load_suite_file", counted)
    with player(playground_app(tmp_path)) as client:
        save(client, "hello", "Just Ask", "a.jsonl")
        parses.clear()
        for _ in range(3):
            assert "1 of 1 saved cases" in client.get("/play/collected").text
            assert client.get("/play/saved").status_code == 200
        assert parses == ["a.jsonl"]
        save(client, "again", "Just Ask", "a.jsonl")  # appended: new size and time
        assert "2 of 2 saved cases" in client.get("/play/collected").text
        assert parses == ["a.jsonl", "a.jsonl"]


def test_a_kept_parse_is_bounded_by_bytes_and_dropped_when_stale(tmp_path: Path) -> None:
    kept = ParsedFiles(max_bytes=100)
    kept.put(tmp_path / "a", (1, 60), ())
    assert kept.get(tmp_path / "a", (1, 60)) == ()
    assert kept.get(tmp_path / "a", (2, 60)) is None  # touched since
    kept.put(tmp_path / "b", (1, 60), ())  # 120 bytes: the least recently used goes
    assert kept.get(tmp_path / "a", (1, 60)) is None
    assert kept.get(tmp_path / "b", (1, 60)) == ()
    kept.put(tmp_path / "c", (1, 500), ())  # larger than the bound: never kept
    assert kept.get(tmp_path / "c", (1, 500)) is None


def test_the_summary_is_counted_once_per_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = collected_page.summary

    def counted(cases: list[tuple[str, TestCase]]) -> dict[str, list[dict[str, object]]]:
        calls.append(len(cases))
        return real(cases)

    monkeypatch.setattr(collected_page, "summary", counted)
    with player(playground_app(tmp_path)) as client:
        save(client, "hello", "Just Ask", "a.jsonl")
        assert client.get("/play/collected").status_code == 200
    assert calls == [1]
