"""CSV export never hands a spreadsheet a formula; JSONL stays lossless."""

import csv
import json
from pathlib import Path

import pytest

from rulebench.engine.export.run_export import export_results, guard_formula
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask


@pytest.mark.parametrize(
    "text", ["=1+1", "@x", "-2+3", "+1", '=HYPERLINK("http://x")', "\t=1", "\r=1", "-"]
)
def test_formula_starts_get_a_quote(text: str) -> None:
    assert guard_formula(text) == "'" + text


@pytest.mark.parametrize("value", ["ok", "", "1+1", " =1", "[1]", "'=1", 3, -2.5, 0.0, None])
def test_other_cells_are_unchanged(value: object) -> None:
    assert guard_formula(value) == value


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("prefix", ["=1+1", "@x", "-2+3"])
async def test_replies_are_guarded_in_csv_and_kept_in_jsonl(
    store: Store, tmp_path: Path, prefix: str
) -> None:
    # The echo model replies "<prefix> <i>", so every reply starts like a formula.
    report = await Runner(store).run(
        EchoTask(2, prefix=prefix), ScriptedModel("echo"), RunSpec(task="t", model="m")
    )
    run_id = report.run.id
    csv_path, jsonl_path = tmp_path / "out.csv", tmp_path / "out.jsonl"
    export_results(run_id, store.iter_results(run_id), csv_path, "csv")
    export_results(run_id, store.iter_results(run_id), jsonl_path, "jsonl")
    rows = read_csv(csv_path)
    assert sorted(row["reply"] for row in rows) == [f"'{prefix} 0", f"'{prefix} 1"]
    # Numbers stay numbers, JSON columns stay JSON.
    assert {row["score"] for row in rows} == {"1.0"}
    assert json.loads(rows[0]["messages"])[0]["content"].startswith(prefix)
    replies = [json.loads(line)["reply"] for line in jsonl_path.read_text().splitlines()]
    assert sorted(replies) == [f"{prefix} 0", f"{prefix} 1"]
