"""IRFT data held out by composition: no held-out condition or output occurs in training."""

from pathlib import Path

from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.inferential.tasks.stringgame.rules.heldout import condition_parts
from rulebench.inferential.tasks.stringgame.rules.library import LIBRARY
from rulebench.study.irft import StudyConfig, measurements
from rulebench.train.data import read_examples, read_manifest, write_dataset
from rulebench.train.examples import DataConfig

COMPOSITION = DataConfig(limit=40, per_group=10, seed=2, heldout_by="composition")


def parts_of(rule_ids: set[str]) -> tuple[set[str], set[str]]:
    conditions = {p for r in rule_ids for p in condition_parts(LIBRARY[r])}
    return conditions, {LIBRARY[r].output.key for r in rule_ids}


def test_training_examples_never_list_a_held_out_condition_or_output(tmp_path: Path) -> None:
    manifest = write_dataset(COMPOSITION, tmp_path / "d")
    assert manifest.config is not None and manifest.config.heldout_by == "composition"
    assert manifest.left_out_rules and manifest.heldout_rules
    train = read_examples(tmp_path / "d", "train")
    listed = {rule_id for example in train for rule_id in example.rule_ids}
    assert not listed & set(manifest.heldout_rules) and not listed & set(manifest.left_out_rules)
    held_conditions, held_outputs = parts_of(set(manifest.heldout_rules))
    conditions, outputs = parts_of(listed)
    assert not held_conditions & conditions and not held_outputs & outputs
    heldout = read_examples(tmp_path / "d", "heldout")
    assert heldout and {e.golden_rule for e in heldout} <= set(manifest.heldout_rules)


def test_the_default_split_is_by_rule_and_unchanged(tmp_path: Path) -> None:
    manifest = write_dataset(DataConfig(limit=8, per_group=4, seed=2), tmp_path / "d")
    assert manifest.config is not None and manifest.config.heldout_by == "rules"
    assert manifest.left_out_rules == ()
    assert len(manifest.heldout_rules) + len(manifest.train_rules) == len(LIBRARY)


def test_the_command_and_the_comparison_name_the_split(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    args = ["train", "data", "-o", str(folder), "--limit", "8", "--per-group", "3"]
    result = CliRunner().invoke(app, [*args, "--heldout-by", "composition"])
    assert result.exit_code == 0, result.output
    assert "held out by composition" in result.stdout
    assert read_manifest(folder).config.heldout_by == "composition"  # type: ignore[union-attr]
    titles = [m.name for m in measurements(StudyConfig(), folder)]
    assert any("held out by composition (conditions, outputs unseen)" in t for t in titles)


def test_an_irft_test_run_records_the_split_it_measured(tmp_path: Path) -> None:
    from rulebench.api import run_spec
    from rulebench.train.eval_task import IrftTestTask

    write_dataset(COMPOSITION, tmp_path / "d")
    spec = run_spec("irft-test", "scripted/echo", {"data": str(tmp_path / "d")}, {})
    assert spec.task_config["heldout_by"] == "composition"
    items = IrftTestTask(**spec.task_config).items()
    assert items and {item.metadata["heldout_by"] for item in items} == {"composition"}
