import csv
import json
from pathlib import Path

from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.export.run_export import export_results
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.base import BackendOptions
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask


async def test_jsonl_export_is_lossless_and_replays(store: Store, tmp_path: Path) -> None:
    spec = RunSpec(task="echo-test", model="scripted/echo")
    report = await Runner(store).run(EchoTask(5), ScriptedModel("echo"), spec)
    path = tmp_path / "out.jsonl"
    assert export_results(report.run.id, store.iter_results(report.run.id), path, "jsonl") == 5
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert {row["run_id"] for row in rows} == {report.run.id}
    assert rows[0]["outcome"]["score"] == 1.0
    replay = ScriptedModel.create("replay", BackendOptions(args={"file": str(path)}))
    again = await Runner(store).run(
        EchoTask(5), replay, spec.model_copy(update={"use_cache": False})
    )
    assert [r.reply for r in store.iter_results(again.run.id)] == [
        r.reply for r in store.iter_results(report.run.id)
    ]


async def test_csv_export_has_one_flat_row_per_result(store: Store, tmp_path: Path) -> None:
    report = await Runner(store).run(
        EchoTask(3), ScriptedModel("echo"), RunSpec(task="t", model="m")
    )
    path = tmp_path / "out.csv"
    export_results(report.run.id, store.iter_results(report.run.id), path, "csv")
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 and rows[0]["status"] == "ok" and rows[0]["score"] == "1.0"
    assert json.loads(rows[0]["messages"])[0]["role"] == "user"
    assert not list(tmp_path.glob(".*partial"))


def test_csv_cells_sit_under_their_own_header(tmp_path: Path) -> None:
    result = ItemResult(
        item_id="i1",
        reply="fine",
        outcome=Outcome(answer="a", score=1.0),
        warnings=("reply cut at 10 characters (max_reply_chars)",),
        metadata={"hops": 3},
    )
    path = tmp_path / "out.csv"
    export_results("run-1", [result], path, "csv")
    with path.open(newline="", encoding="utf-8") as handle:
        [row] = list(csv.DictReader(handle))
    assert row["run_id"] == "run-1" and row["item_id"] == "i1" and row["reply"] == "fine"
    assert json.loads(row["warnings"]) == ["reply cut at 10 characters (max_reply_chars)"]
    assert json.loads(row["metadata"]) == {"hops": 3} and "finished_at" not in row
