"""CSV and JSONL exports hold no raw control or bidi-control character, yet lose nothing.

CSV once wrote the ESC and BEL bytes of replies and errors as they came, so `cat results.csv`
ran them (clear screen, window title); U+202E reversed what a reader saw.
"""

import csv
import json
from pathlib import Path

from rulebench.core.text import escape_controls
from rulebench.engine.export.run_export import export_results
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel, ScriptedRule

from tests.conftest import EchoTask

# Clear screen, BEL, the bidi override, the four isolates, both marks, CSI as C1, DEL.
HOSTILE = "a\x1b[2Jb\x07c\u202ed\u2066e\u2067f\u2068g\u2069h\u200ei\u200fj\x9bk\x7fl"
RAW = ("\x1b", "\x07", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f")
RAW_ALL = (*RAW, "\x9b", "\x7f")
SHOWN = "a\\x1b[2Jb\\x07c\\u202ed\\u2066e\\u2067f\\u2068g\\u2069h\\u200ei\\u200fj\\x9bk\\x7fl"


def assert_no_raw(text: str) -> None:
    for raw in RAW_ALL:
        assert raw not in text, (raw, text[:300])


def test_escape_controls_shows_bidi_controls_and_keeps_json_json() -> None:
    assert escape_controls(HOSTILE) == SHOWN
    assert (
        escape_controls("\u061c x \u202a\u202b\u202c\u202d")
        == "\\u061c x \\u202a\\u202b\\u202c\\u202d"
    )
    dumped = json.dumps({"reply": HOSTILE}, ensure_ascii=False)
    escaped = escape_controls(dumped, is_json=True)
    assert_no_raw(escaped)
    assert json.loads(escaped) == {"reply": HOSTILE}
    assert escape_controls("plain é 漢字 🙂 \n\t") == "plain é 漢字 🙂 \n\t"


async def test_csv_and_jsonl_exports_escape_replies_and_errors(
    store: Store, tmp_path: Path
) -> None:
    # The echo of "<HOSTILE> i" as the reply; item 1 fails with an error quoting HOSTILE.
    rules = [
        ScriptedRule(contains=f"{HOSTILE} 1", error=f"boom {HOSTILE}", transient=False),
        ScriptedRule(contains=HOSTILE, reply=f"said {HOSTILE}"),
    ]
    model = ScriptedModel("rules", rules=rules)
    spec = RunSpec(task="t", model="m", stop_after_same=100)
    report = await Runner(store).run(EchoTask(3, prefix=HOSTILE), model, spec)
    run_id = report.run.id
    csv_path, jsonl_path = tmp_path / "out.csv", tmp_path / "out.jsonl"
    export_results(run_id, store.iter_results(run_id), csv_path, "csv")
    export_results(run_id, store.iter_results(run_id), jsonl_path, "jsonl")
    for path in (csv_path, jsonl_path):
        assert_no_raw(path.read_text(encoding="utf-8"))
    with csv_path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["reply"] for row in rows) == ["", f"said {SHOWN}", f"said {SHOWN}"]
    assert [row["error"] for row in rows if row["error"]] == [f"boom {SHOWN}"]
    contents = {json.loads(row["messages"])[0]["content"] for row in rows}
    assert contents == {f"{HOSTILE} {i}" for i in range(3)}  # JSON cells still parse
    lines = [json.loads(line) for line in jsonl_path.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["reply"] or "" for line in lines) == ["", *[f"said {HOSTILE}"] * 2]
