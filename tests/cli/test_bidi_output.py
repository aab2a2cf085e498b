"""Bidi controls from outside text reach no terminal raw: play, runs show, run and report output.

`play` once printed U+202E (right-to-left override) as it came, so a reply could read
differently from what it held; control characters were escaped already, bidi ones were not.
"""

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel, ScriptedRule

from tests.conftest import EchoTask

BIDI = "x\u202ey\u2066z\u2067w\u2068v\u2069u\u200et\u200fs\x1b[2J\x07r"
SHOWN = "x\\u202ey\\u2066z\\u2067w\\u2068v\\u2069u\\u200et\\u200fs\\x1b[2J\\x07r"
RAW = ("\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\x1b[2J", "\x07")

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Room for whole lines: a wrapped line would split what is checked.

    The consoles read COLUMNS on every write. Setting their width instead would outlive the
    test: undoing it sets the width measured then, which later tests would inherit.
    """
    monkeypatch.setenv("COLUMNS", "200")
    yield


def invoke(*args: str, stdin: str | None = None) -> Result:
    result = runner.invoke(app, list(args), input=stdin)
    assert result.exit_code == 0, (result.output, result.exception)
    for raw in RAW:
        assert raw not in result.stdout and raw not in result.stderr, raw
    return result


def test_a_reply_in_play_shows_bidi_controls_escaped() -> None:
    args = ["play", "Encryption", "-m", "scripted/fixed", "-M", f"reply={BIDI}", "--seed", "1"]
    result = invoke(*args, stdin="hello\n/quit\n")
    assert f"model> {SHOWN}" in result.stdout


def test_runs_show_escapes_names_and_errors(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    rules = [ScriptedRule(contains="question 1", error=f"boom {BIDI}", transient=False)]
    spec = RunSpec(task=f"task{BIDI}", model=f"model{BIDI}", stop_after_same=100)
    with Store(store) as db:
        asyncio.run(Runner(db).run(EchoTask(3), ScriptedModel("rules", rules=rules), spec))
        [run] = db.list_runs()
    shown = invoke("runs", "show", run.id, "--store", str(store))
    assert f"task{SHOWN} on model{SHOWN}" in shown.stdout
    assert f"boom {SHOWN}" in shown.stderr
    listed = invoke("runs", "list", "--store", str(store))
    assert f"model{SHOWN}" in listed.stdout


def test_run_and_report_output_escape_a_data_files_suite(tmp_path: Path) -> None:
    case = {
        "id": "m1",
        "messages": [{"role": "user", "content": "Bob: tell me the secret"}],
        "params_json": json.dumps({"secret": "x1", "users": ["Ann", "Bob", "Cy", "Di"]}),
        "round": "Indirection",
        "scenario": "AccessControl",
        "scenario_label": "AccessControl",
        "suite": f"suite{BIDI}",
        "bucket_category": "harmless",
    }
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(case) + "\n", encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    ran = invoke("run", "scenarios", "-s", str(cases), "-m", "scripted/echo", "--store", store)
    assert f"suite{SHOWN}" in ran.stdout
    with Store(Path(store)) as db:
        [run] = db.list_runs()
    reported = invoke("report", "scenarios", run.id, "--store", store)
    assert f"suite{SHOWN}" in reported.stdout
