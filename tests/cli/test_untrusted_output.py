"""Outside text (replies, errors, specs, paths, data files) never controls the terminal.

Nor is it read as rich markup: "[/x]" in a model spec, a store path or a data file's `suite`
used to end in a MarkupError traceback.
"""

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from rulebench.cli import console
from rulebench.cli.app import app
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel
from rulebench.report.untrusted import escape_controls, escape_markup, safe_text

from tests.command import rulebench
from tests.conftest import EchoTask

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

# OSC 52 (put "hello" on the clipboard), clear screen, CSI as one C1 character, DEL.
ATTACK = "\x1b]52;c;aGVsbG8=\x07\x1b[2J\x9b31m\x7f"
VISIBLE = "\\x1b]52;c;aGVsbG8=\\x07\\x1b[2J\\x9b31m\\x7f"
# Pieces of ATTACK that rich's own styling never emits, so the checks hold with FORCE_COLOR.
RAW = ("\x1b]52", "\x1b[2J", "\x07", "\x9b", "\x7f")

runner = CliRunner()


def assert_no_raw_controls(*texts: str) -> None:
    for text in texts:
        for raw in RAW:
            assert raw not in text, repr(text)


def invoke(*args: str, stdin: str | None = None) -> Result:
    result = runner.invoke(app, list(args), input=stdin)
    assert_no_raw_controls(result.stdout, result.stderr)
    return result


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Room for whole cells: a truncated cell would hide what is checked."""
    monkeypatch.setenv("COLUMNS", "200")
    yield


def test_escape_controls_shows_every_control_but_newline_and_tab() -> None:
    controls = [*range(0x20), 0x7F, *range(0x80, 0xA0)]
    for code in controls:
        expected = chr(code) if chr(code) in "\n\t" else f"\\x{code:02x}"
        assert escape_controls(f"a{chr(code)}b") == f"a{expected}b"
    printable = "plain é ü \u00a0 漢字 🙂 [/x] \\x1b"
    assert escape_controls(printable) == printable


def test_markup_and_text_helpers_print_literally() -> None:
    buffer = io.StringIO()
    terminal = Console(file=buffer, width=200, force_terminal=True, color_system="truecolor")
    markup = f"[bold]{escape_markup('[/x] [red]' + ATTACK)}[/bold]"
    terminal.print(markup, end="|", highlight=False)
    terminal.print(safe_text("[link=http://evil.test]x" + ATTACK))
    output = buffer.getvalue()
    assert_no_raw_controls(output)
    assert "[/x] [red]" + VISIBLE in output and "[link=http://evil.test]x" + VISIBLE in output


@pytest.mark.parametrize(
    ("name", "shown"), [("[/x]", "[/x]"), ("[bold]b", "[bold]b"), (ATTACK, VISIBLE)]
)
def test_model_spec_is_shown_literally_in_one_error_line(
    tmp_path: Path, name: str, shown: str
) -> None:
    result = rulebench("run", "smoke", "-m", f"scripted/{name}", "--store", str(tmp_path / "s"))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert_no_raw_controls(result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[0].startswith(f"smoke on scripted/{shown}:")
    assert lines[-1] == (
        f"error: unknown scripted model '{shown}': use echo, fixed, rules or replay"
    )


@pytest.mark.parametrize("folder", ["[/x]", "[bold]b", "a\x1b[2J"])
def test_store_path_is_shown_literally(tmp_path: Path, folder: str) -> None:
    path = tmp_path / folder / "s.sqlite"
    result = invoke("run", "smoke", "-m", "scripted/echo", "--store", str(path))
    assert result.exit_code == 0, result.output
    assert f"store: {escape_controls(str(path))}" in result.stderr


def test_store_path_in_an_error_is_one_literal_line(tmp_path: Path) -> None:
    (tmp_path / "[").mkdir()
    (tmp_path / "[" / "x]").write_text("a file, not a folder")
    path = tmp_path / "[/x]" / "\x1b[2J.sqlite"
    result = rulebench("runs", "list", "--store", str(path))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert_no_raw_controls(result.stderr)
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    assert line.startswith("error: ") and escape_controls(str(path)) in line


def test_error_messages_from_the_model_are_escaped(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    error = f"boom {ATTACK} [/x]"
    rules.write_text(json.dumps([{"contains": "", "error": error, "transient": False}]))
    store = str(tmp_path / "s.sqlite")
    ran = rulebench(
        "run", "smoke", "-m", "scripted/rules", "-M", f"rules={rules}", "--store", store
    )
    assert "Traceback" not in ran.stderr
    assert_no_raw_controls(ran.stdout, ran.stderr)
    assert f"boom {VISIBLE} [/x]" in ran.stderr
    with Store(Path(store)) as db:
        [run] = db.list_runs()
    shown = invoke("runs", "show", run.id, "--store", store)
    assert shown.exit_code == 0, shown.output
    assert f"x boom {VISIBLE} [/x]" in shown.stderr


def test_model_reply_in_play_is_escaped() -> None:
    result = invoke(
        "play",
        "Encryption",
        "-m",
        "scripted/fixed",
        "-M",
        f"reply={ATTACK}",
        "--seed",
        "1",
        stdin="hello\n/quit\n",
    )
    assert result.exit_code == 0, result.output
    assert f"model> {VISIBLE}" in result.stdout


def store_hostile_run(path: Path) -> str:
    """A run whose task, model and item metadata hold markup and control sequences."""
    spec = RunSpec(task=f"task[/x]{ATTACK}", model=f"model[/x]{ATTACK}")
    with Store(path) as store:
        report = asyncio.run(Runner(store).run(EchoTask(2), ScriptedModel("echo"), spec))
    return report.run.id


def test_stored_text_in_runs_list_and_show_is_escaped(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = store_hostile_run(store)
    listed = invoke("runs", "list", "--store", str(store))
    assert listed.exit_code == 0, listed.output
    assert f"model[/x]{VISIBLE}" in listed.stdout and f"task[/x]{VISIBLE}" in listed.stdout
    shown = invoke("runs", "show", run_id, "--store", str(store))
    assert shown.exit_code == 0, shown.output
    assert f"task[/x]{VISIBLE} on model[/x]{VISIBLE}" in shown.stdout


@pytest.mark.parametrize("command", [("runs", "list"), ("runs", "show", "RUN")])
def test_json_output_is_ascii_and_lossless(tmp_path: Path, command: tuple[str, ...]) -> None:
    store = tmp_path / "s.sqlite"
    run_id = store_hostile_run(store)
    args = [run_id if arg == "RUN" else arg for arg in command]
    result = invoke(*args, "--json", "--store", str(store))
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    run = payload[0] if isinstance(payload, list) else payload
    assert run["model"] == f"model[/x]{ATTACK}"


def write_hostile_suite(path: Path, suite: str) -> Path:
    case = {
        "id": "m1",
        "messages": [{"role": "user", "content": "Bob: tell me the secret"}],
        "params_json": json.dumps({"secret": "x1", "users": ["Ann", "Bob", "Cy", "Di"]}),
        "round": "Indirection",
        "scenario": "AccessControl",
        "scenario_label": "AccessControl",
        "suite": suite,
        "bucket_category": "harmless",
    }
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    return path


def test_suite_field_of_a_data_file_is_shown_literally(tmp_path: Path) -> None:
    suite = f"[/x]|<script>{ATTACK}"
    cases = write_hostile_suite(tmp_path / "cases.jsonl", suite)
    store = str(tmp_path / "s.sqlite")
    ran = invoke("run", "scenarios", "-s", str(cases), "-m", "scripted/echo", "--store", store)
    assert ran.exit_code == 0, ran.output
    group = f"[/x]|<script>{VISIBLE} harmless"
    assert group in ran.stdout
    with Store(Path(store)) as db:
        [run] = db.list_runs()
    assert group in invoke("runs", "show", run.id, "--store", store).stdout
    report = tmp_path / "report.md"
    shown = invoke("report", "scenarios", run.id, "--store", store, "-o", str(report))
    assert shown.exit_code == 0, shown.output
    assert "[/x]|<script>\\x1b]52" in shown.stdout  # rich renders the escaped Markdown literally
    markdown = report.read_text(encoding="utf-8")
    assert_no_raw_controls(markdown)
    assert "| [/x]\\|&lt;script&gt;\\\\x1b]52;c;aGVsbG8=" in markdown


def test_export_message_shows_the_path_literally_and_csv_is_guarded(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    ran = invoke("run", "smoke", "-m", "scripted/fixed", "-M", "reply==1+1", "--store", store)
    assert ran.exit_code == 0, ran.output
    with Store(Path(store)) as db:
        [run] = db.list_runs()
    (tmp_path / "[").mkdir()
    output = tmp_path / f"[/x]{ATTACK}.csv"  # the file "x]...csv" in the folder "["
    exported = invoke("runs", "export", run.id, "-o", str(output), "--store", store)
    assert exported.exit_code == 0, exported.output
    assert f"to {escape_controls(str(output))} (csv)" in exported.stderr
    assert "'=1+1" in output.read_text(encoding="utf-8")


def test_models_listing_keeps_brackets() -> None:
    result = invoke("models")
    assert result.exit_code == 0, result.output
    assert "pip install 'rulebench[hf]'" in result.stdout


def test_log_messages_are_escaped() -> None:
    formatter = console._ControlSafeFormatter("%(message)s")
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "server said %s", (ATTACK,), None)
    assert formatter.format(record) == f"server said {VISIBLE}"
