"""`prepare_data` and the `train data` notes: the library builds the folder the command writes."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.train.data import read_manifest
from rulebench.train.data_notes import written_lines
from rulebench.train.data_options import (
    IN_DOMAIN_ONLY,
    STRINGGAME_ONLY,
    DataOptions,
    abandon_build,
    prepare_data,
    write_data,
)
from rulebench.train.examples import DataConfig
from rulebench.train.in_domain import InDomainConfig

runner = CliRunner()


def test_the_command_writes_the_folder_prepare_data_describes(tmp_path: Path) -> None:
    folder = tmp_path / "cli"
    args = ["-n", "10", "--per-group", "3", "--heldout-by", "composition", "--form", "fol"]
    result = runner.invoke(app, ["train", "data", "-o", str(folder), *args])
    assert result.exit_code == 0, result.output
    options = DataOptions(limit=10, per_group=3, heldout_by="composition", form="fol")
    prepared = prepare_data(options)
    assert prepared.config == read_manifest(folder).config
    assert prepared.config == DataConfig(
        limit=10, per_group=3, heldout_by="composition", form="fol"
    )
    assert (prepared.bar_label, prepared.total) == ("building examples", 10 + 2 * 3)
    manifest = write_data(prepared.config, tmp_path / "api")
    assert manifest.data_hash == read_manifest(folder).data_hash
    said = written_lines(read_manifest(folder), folder)
    assert result.stdout.split() == " ".join(said).split()  # the console wraps long lines


def test_written_lines_count_splits_and_rules(tmp_path: Path) -> None:
    manifest = write_data(DataConfig(limit=6, per_group=2, heldout_fraction=0.0), tmp_path)
    lines = written_lines(manifest, tmp_path)
    assert lines[0] == f"IRFT data in {tmp_path}"
    assert lines[1:3] == ["  train          6 examples", "  test           2 examples"]
    assert lines[3].startswith(f"  rules: {len(manifest.train_rules)} for training, 0 held out")
    assert lines[3].endswith(f"; data hash {manifest.data_hash[:16]}")


def test_in_domain_options_build_an_in_domain_config(tmp_path: Path) -> None:
    prepared = prepare_data(DataOptions(in_domain=True, kinship_size=2, limit=3, seed=1))
    assert prepared.config == InDomainConfig(kinship_size=2, limit=3, seed=1)
    assert (prepared.bar_label, prepared.total) == ("building in-domain examples", None)
    manifest = write_data(prepared.config, tmp_path)
    lines = written_lines(manifest, tmp_path)
    assert lines[0] == f"IRFT in-domain data in {tmp_path}"
    assert lines[-1].startswith("  train          3 examples; data hash ")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (DataOptions(in_domain=True, heldout_by="rules"), STRINGGAME_ONLY),
        (DataOptions(tasks=("clutrr",)), IN_DOMAIN_ONLY),
        (DataOptions(limit=0), "train data: limit: Input should be greater than or equal to 1"),
        (DataOptions(in_domain=True, kinship_size=-1), "train data --in-domain: kinship_size"),
    ],
)
def test_options_of_the_other_kind_or_out_of_range_are_one_error(
    options: DataOptions, message: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        prepare_data(options)
    assert str(refused.value).startswith(message)


def test_a_stopped_build_leaves_its_folder_complete_or_empty(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    (folder / "dataset").mkdir(parents=True)
    (folder / "train.jsonl").write_text("{}\n")
    assert abandon_build(folder) == (
        f"No data set was written ({folder} is empty); run the same command again."
    )
    assert list(folder.iterdir()) == []
    write_data(DataConfig(limit=4, per_group=1), folder)
    assert abandon_build(folder) == f"The data set in {folder} was complete."
    assert read_manifest(folder).counts["train"] == 4
