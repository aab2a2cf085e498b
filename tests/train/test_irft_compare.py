"""The before/after study: the StringGame test task, paired rows, the sides, the stored runs."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError, DataError
from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.store.database import Store
from rulebench.study.irft import StudyConfig, contender, measurements, run_study, write_outputs
from rulebench.train.comparison import ScoredItem, compare_rows, scored_items
from rulebench.train.data import read_examples
from rulebench.train.eval_task import IrftTestTask, named_rule

from tests.stored_json import json_object

runner = CliRunner()


def verdicts(pattern: str, group: str = "") -> dict[str, ScoredItem]:
    """Item i is right where pattern[i] is "1"."""
    return {f"i{i}": ScoredItem(group=group, correct=c == "1") for i, c in enumerate(pattern)}


def test_paired_rows_count_discordant_pairs_and_test_them() -> None:
    [row] = compare_rows("x", verdicts("000011"), verdicts("111011"))
    assert row.pairs == 6 and row.base == pytest.approx(2 / 6) and row.tuned == pytest.approx(5 / 6)
    assert (row.only_tuned, row.only_base, row.unpaired) == (3, 0, 0)
    assert row.mcnemar_p == pytest.approx(0.25)  # 3 discordant pairs, all one way: 2 * 1/8
    assert row.delta is not None and row.delta.value == pytest.approx(0.5)
    assert row.delta.low < 0.5 < row.delta.high and row.delta.pairs == 6


def test_rows_split_by_group_and_leave_unpaired_items_out() -> None:
    base = verdicts("10", "clutrr") | {"c0": ScoredItem(group="law", correct=False)}
    tuned = verdicts("11", "clutrr") | {"c0": ScoredItem(group="law", correct=True)}
    tuned["extra"] = ScoredItem(group="law", correct=True)
    rows = compare_rows("RuleBench", base, tuned)
    assert [r.evaluation for r in rows] == ["RuleBench: clutrr", "RuleBench: law", "RuleBench: all"]
    assert [r.pairs for r in rows] == [2, 1, 3] and rows[-1].unpaired == 1
    [single] = compare_rows("RuleBench", verdicts("1", "kinship"), verdicts("0", "kinship"))
    assert single.evaluation == "RuleBench: kinship" and single.only_base == 1


def test_no_pairs_is_a_row_without_numbers() -> None:
    [row] = compare_rows("x", verdicts("1"), {})
    assert row.pairs == 0 and row.delta is None and row.mcnemar_p is None and row.unpaired == 1


def test_errors_and_unscored_items_are_not_verdicts() -> None:
    results = [
        ItemResult(item_id="a", outcome=Outcome(score=1.0), metadata={"task": "t"}),
        ItemResult(item_id="b", outcome=Outcome(passed=False)),
        ItemResult(item_id="c", error="boom"),
        ItemResult(item_id="d", outcome=Outcome(score=None)),
    ]
    found = scored_items(results, "task")
    assert found == {
        "a": ScoredItem(group="t", correct=True),
        "b": ScoredItem(group="", correct=False),
    }


@pytest.mark.parametrize(
    ("reply", "position"),
    [
        ("Based on the third rule, the answer is 4.", 3),
        ("based on rule 2: 7", 2),
        ("Based on the 11th rule, the answer is 1.", 11),
        ("Based on the first rule... no, based on the second rule, the answer is 3", 2),
        ("The answer is 4.", None),
    ],
)
def test_the_rule_a_reply_names(reply: str, position: int | None) -> None:
    assert named_rule(reply) == position


def test_test_task_items_are_the_split_s_examples(tiny_data: Path) -> None:
    task = IrftTestTask(data=str(tiny_data), split="heldout", per_group=3)
    items = task.items()
    examples = read_examples(tiny_data, "heldout")[:3]
    assert [i.target for i in items] == [e.answer for e in examples]
    assert [i.messages[0].content for i in items] == [e.prompt for e in examples]
    assert {i.metadata["split"] for i in items} == {"heldout"}
    assert len({i.id for i in items}) == 3
    assert [i.id for i in IrftTestTask(data=str(tiny_data), split="heldout").items()][:3] == [
        i.id for i in items
    ]
    with pytest.raises(DataError):
        IrftTestTask(data=str(tiny_data.parent / "nothing"))


def test_an_irft_test_run_stored_with_the_old_count_name_resumes(
    tmp_path: Path, tiny_data: Path
) -> None:
    import rulebench

    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {"data": str(tiny_data), "split": "test", "per_group": 4}
    report = rulebench.run("irft-test", "scripted/echo", config=config, store=store)
    with Store(store) as db:  # as a run stored before the rename, stopped halfway
        stored = db.get_run(report.run.id).config
        fields = dict(json_object(stored["task_config"]))
        fields["n"] = fields.pop("per_group")
        spec = json.dumps({**stored, "task_config": fields})
        db._db.execute("UPDATE runs SET config = ?, status = 'interrupted'", (spec,))
        db._db.execute("DELETE FROM results WHERE rowid % 2 = 0")
    with pytest.warns(FutureWarning, match="irft-test field 'n' is now 'per_group'"):
        resumed = rulebench.resume(report.run.id, store=store)
    assert resumed.run.status == "completed" and 0 < resumed.completed_now < 4
    with Store(store, readonly=True) as db:
        assert db.count_results(report.run.id)["ok"] == 4


# --- the sides -----------------------------------------------------------------------------


def fake_irft_output(folder: Path, data: Path, store: Path) -> Path:
    (folder / "adapter").mkdir(parents=True)
    (folder / "adapter" / "adapter_config.json").write_text("{}")
    config = {"model": "hf/SmolLM2-135M-Instruct", "data": str(data)}
    run = {"run_id": "r1", "config": config, "store": str(store)}
    (folder / "irft-run.json").write_text(json.dumps(run))
    return folder


def test_a_side_from_a_spec_a_run_folder_an_adapter_or_merged_weights(
    tmp_path: Path, tiny_data: Path
) -> None:
    base = contender("base", "hf/SmolLM2-135M-Instruct")
    assert base.model == "hf/SmolLM2-135M-Instruct" and base.model_args == {}
    run = fake_irft_output(tmp_path / "run", tiny_data, tmp_path / "s.sqlite")
    tuned = contender("tuned", str(run))
    assert tuned.model == "hf/SmolLM2-135M-Instruct" and tuned.irft_run == run
    assert tuned.model_args == {"adapter": str(run / "adapter")} and tuned.irft_data == tiny_data
    on_base = contender("tuned", str(run / "adapter"), base)
    assert on_base.describe() == f"hf/SmolLM2-135M-Instruct -M adapter={run / 'adapter'}"
    with pytest.raises(ConfigError, match="needs a base model"):
        contender("tuned", str(run / "adapter"))
    merged = tmp_path / "merged"
    merged.mkdir()
    assert contender("tuned", str(merged)).model == f"hf/{merged.resolve()}"
    with pytest.raises(ConfigError, match="unknown"):
        contender("tuned", "nosuchprovider/x")


def test_data_defaults_to_the_tuned_run_s(tmp_path: Path, tiny_data: Path) -> None:
    run = fake_irft_output(tmp_path / "run", tiny_data, tmp_path / "s.sqlite")
    base = contender("base", "scripted/fixed")
    tuned = contender("tuned", "scripted/echo")
    with Store(tmp_path / "x.sqlite") as store, pytest.raises(ConfigError, match="--data"):
        asyncio.run(run_study(StudyConfig(), base, tuned, store))
    names = [m.name for m in measurements(StudyConfig(scenarios=False), tiny_data)]
    held_out = "StringGame held-out rules (their conditions, outputs in training)"
    assert names == ["StringGame in-distribution", held_out, "RuleBench"]
    assert contender("tuned", str(run)).irft_run == run


def test_rulebench_tasks_come_from_the_data_root(tmp_path: Path, tiny_data: Path) -> None:
    (tmp_path / "clutrr").mkdir()
    (tmp_path / "clutrr-cf").mkdir()
    (tmp_path / "law").mkdir()
    config = StudyConfig(data_root=tmp_path, scenarios=False)
    few = measurements(config, tiny_data)[-1].config
    assert few.model_dump()["tasks"] == ("clutrr", "law")
    with pytest.raises(ConfigError, match="no RuleBench dataset"):
        measurements(StudyConfig(data_root=tmp_path / "clutrr"), tiny_data)


# --- the study with scripted models ---------------------------------------------------------


def right_answers(tiny_data: Path, tmp_path: Path, count: int) -> str:
    """A rules file answering the first `count` in-distribution examples right."""
    rules = [
        {"contains": f"Input: {e.string}\n", "reply": e.completion}
        for e in read_examples(tiny_data, "test")[:count]
    ]
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules))
    return str(path)


def test_the_study_stores_every_run_and_pairs_the_items(tmp_path: Path, tiny_data: Path) -> None:
    base = contender("base", "scripted/fixed")
    tuned = contender("tuned", "scripted/rules").model_copy(
        update={"model_args": {"rules": right_answers(tiny_data, tmp_path, 3), "reply": "no"}}
    )
    config = StudyConfig(
        data=tiny_data, stringgame_per_group=4, rulebench_per_group=3, scenarios_per_group=1
    )
    with Store(tmp_path / "s.sqlite") as store:
        result = asyncio.run(run_study(config, base, tuned, store))
        runs = {run.id: run for run in store.list_runs()}
    assert (
        result.complete and len(result.runs) == 8 and set(runs) == {r.run_id for r in result.runs}
    )
    assert {runs[r.run_id].task for r in result.runs} == {"irft-test", "inferential", "scenarios"}
    in_distribution = result.rows[0]
    assert in_distribution.evaluation == "StringGame in-distribution"
    assert (in_distribution.pairs, in_distribution.only_tuned) == (4, 3)
    assert in_distribution.tuned == pytest.approx(0.75) and in_distribution.base == 0.0
    assert [r.evaluation for r in result.rows[2:]] == ["RuleBench: kinship", "scenarios benign"]
    written = write_outputs(result, tmp_path / "out")
    assert [p.name for p in written] == ["compare.md", "compare.json"]  # no loss curve known
    table = (tmp_path / "out" / "compare.md").read_text()
    assert "| StringGame in-distribution | 4 | 0.0 | 75.0 |" in table
    with Store(tmp_path / "s.sqlite") as store:  # a repeat takes every reply from the cache
        again = asyncio.run(run_study(config, base, tuned, store))
    assert again.rows == result.rows and all(run.cache_hits for run in again.runs)
    assert [run.run_id for run in again.runs] != [run.run_id for run in result.runs]


def compare(tmp_path: Path, tiny_data: Path, *options: str, command: str = "train") -> Result:
    store = tmp_path / "s.sqlite"
    args = [command, "compare", "scripted/fixed", "scripted/fixed", "--data", str(tiny_data)]
    args += [*options, "--no-scenarios", "--store", str(store), "-o", str(tmp_path / "o")]
    return runner.invoke(app, [*args, "--json"])


def test_compare_from_the_command_line(tmp_path: Path, tiny_data: Path) -> None:
    result = compare(tmp_path, tiny_data, "--per-group", "2")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert [row["pairs"] for row in shown["rows"]] == [2, 2, 2]
    assert all(row["delta"]["value"] == 0 for row in shown["rows"])
    assert (tmp_path / "o" / "compare.json").is_file()


def stored_specs(store_path: Path) -> list[dict[str, Any]]:
    with Store(store_path, readonly=True) as db:
        return sorted((dict(run.config) for run in db.list_runs()), key=json.dumps)


def test_the_command_stores_the_runs_the_python_api_stores(tmp_path: Path, tiny_data: Path) -> None:
    result = compare(tmp_path / "cli", tiny_data, "--per-group", "2")
    assert result.exit_code == 0, result.output
    config = StudyConfig.model_validate({"data": tiny_data, "per_group": 2, "scenarios": False})
    assert (config.stringgame_per_group, config.rulebench_per_group) == (2, 2)
    side = contender("base", "scripted/fixed")
    with Store(tmp_path / "api.sqlite") as store:
        asyncio.run(run_study(config, side, contender("tuned", "scripted/fixed"), store))
    assert stored_specs(tmp_path / "cli" / "s.sqlite") == stored_specs(tmp_path / "api.sqlite")


def test_the_old_command_and_count_spellings_warn_and_set_their_part(
    tmp_path: Path, tiny_data: Path
) -> None:
    result = compare(tmp_path, tiny_data, "--n", "2", "--rulebench-n", "1", command="irft")
    assert result.exit_code == 0, result.output
    assert "rulebench irft compare is now rulebench train compare" in result.stderr
    assert "--n is now --per-group" in result.stderr
    assert [row["pairs"] for row in json.loads(result.stdout)["rows"]] == [2, 2, 1]
    with pytest.warns(FutureWarning, match="'stringgame_n' is now 'stringgame_per_group'"):
        old = StudyConfig.model_validate({"stringgame_n": 3, "per_group": 5})
    assert (old.stringgame_per_group, old.rulebench_per_group, old.scenarios_per_group) == (3, 5, 5)


def test_the_library_writes_the_comparison_tables(tmp_path: Path, tiny_data: Path) -> None:
    config = StudyConfig.model_validate(
        {"data": tiny_data, "per_group": 1, "scenarios": False, "rulebench": False}
    )
    side = contender("base", "scripted/fixed")
    with Store(tmp_path / "s.sqlite") as store:
        result = asyncio.run(run_study(config, side, side, store))
    written = write_outputs(result, tmp_path / "o")
    assert written[:2] == [tmp_path / "o" / "compare.md", tmp_path / "o" / "compare.json"]
    assert "| StringGame in-distribution | 1 |" in written[0].read_text()
    assert json.loads(written[1].read_text())["rows"][0]["pairs"] == 1


def test_the_study_runs_the_official_tasks_of_a_data_root(tmp_path: Path, tiny_data: Path) -> None:
    root = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"
    config = StudyConfig(
        data=tiny_data, data_root=root, stringgame_per_group=1, rulebench_per_group=2
    )
    side = contender("base", "scripted/fixed")
    with Store(tmp_path / "s.sqlite") as store:
        result = asyncio.run(
            run_study(config.model_copy(update={"scenarios": False}), side, side, store)
        )
    rulebench = [row for row in result.rows if row.evaluation.startswith("RuleBench: ")]
    factual = ["clutrr", "deer", "law", "salad", "theoremQA", "ulogic"]
    assert [row.evaluation for row in rulebench] == [f"RuleBench: {t}" for t in [*factual, "all"]]
    assert all(row.pairs == 2 for row in rulebench[:-1]) and rulebench[-1].pairs == 12
