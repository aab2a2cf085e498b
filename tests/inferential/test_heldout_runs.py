"""run inferential --heldout-by: StringGame asks only about the IRFT held-out rules, and says so."""

from pathlib import Path

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store
from rulebench.inferential.task import InferentialTask
from rulebench.inferential.tasks.stringgame.rules.heldout import HeldOutBy, split_library
from rulebench.inferential.tasks.stringgame.rules.library import LIBRARY
from rulebench.report.build import inferential_report
from rulebench.train.examples import DataConfig, rule_split

from tests.stored_json import json_at


@pytest.mark.parametrize("by", ["rules", "composition"])
def test_golden_rules_are_the_held_out_rules_of_the_training_data(by: HeldOutBy) -> None:
    # The split `train data` writes (its manifest's heldout_rules; tests/train checks that),
    # computed without writing a folder: writing one imports pandas, which other tests here
    # require to stay unimported.
    training_split = rule_split(DataConfig(seed=3, heldout_by=by))
    task = InferentialTask(tasks=["stringgame"], per_group=40, seed=3, heldout_by=by)
    samples = task.data("stringgame").samples
    assert len(samples) == 40 == len(task.items())
    assert {s.golden_rule for s in samples} <= training_split.heldout
    assert training_split == split_library(LIBRARY, 0.2, 3, by)


def test_without_heldout_any_rule_may_be_golden() -> None:
    samples = InferentialTask(tasks=["stringgame"], per_group=60).data("stringgame").samples
    held = split_library(LIBRARY, 0.2, 0, "rules").heldout
    assert {s.golden_rule for s in samples} - held


def test_heldout_needs_stringgame() -> None:
    with pytest.raises(ConfigError, match="--heldout-by composition selects StringGame"):
        InferentialTask(tasks=["kinship"], per_group=2, heldout_by="composition")


def test_reports_name_the_split(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {
        "tasks": ["stringgame"],
        "per_group": 3,
        "heldout_by": "composition",
    }
    run_id = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    with Store(store, readonly=True) as db:
        built = inferential_report(db, [run_id], folder=tmp_path / "r")
        stored = db.get_run(run_id).config
        assert json_at(stored, "task_config", "heldout_by") == "composition"
    assert "held out by composition, conditions and outputs unseen" in built.markdown


def test_the_command_line_option_is_recorded_and_runs_show_names_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rulebench.cli.app import app

    store = str(tmp_path / "s.sqlite")
    args = ["run", "inferential", "-m", "scripted/echo", "-t", "stringgame", "--per-group", "2"]
    result = CliRunner().invoke(app, [*args, "--heldout-by", "rules", "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    with Store(Path(store), readonly=True) as db:
        [run] = db.list_runs()
    shown = CliRunner().invoke(app, ["runs", "show", run.id, "--store", store])
    assert shown.exit_code == 0, shown.output
    assert '"heldout_by": "rules"' in shown.stdout
