import csv
import json
from pathlib import Path

from rulebench.engine.export import export_results
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store import Store
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
