"""IRFT data folders: JSONL, the datasets folder and the manifest, written and read back."""

import json
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError, DataError
from rulebench.train.data import read_examples, read_manifest, write_dataset
from rulebench.train.examples import DataConfig, build_examples

CONFIG = DataConfig(limit=30, per_group=10, seed=1)


def test_layout_and_round_trip(tmp_path: Path) -> None:
    from datasets import load_from_disk

    folder = tmp_path / "irft-data"
    manifest = write_dataset(CONFIG, folder)
    assert sorted(p.name for p in folder.iterdir()) == [
        "dataset",
        "heldout.jsonl",
        "manifest.json",
        "test.jsonl",
        "train.jsonl",
    ]
    assert manifest == read_manifest(folder)
    assert manifest.counts == {"train": 30, "test": 10, "heldout": 10}
    assert not set(manifest.train_rules) & set(manifest.heldout_rules)
    built = build_examples(CONFIG)
    for split in ("train", "test", "heldout"):
        assert read_examples(folder, split) == built[split]
    loaded = load_from_disk(str(folder / "dataset"))
    assert {split: loaded[split].num_rows for split in loaded} == manifest.counts
    row = loaded["train"][0]
    assert row["prompt"] == [{"role": "user", "content": built["train"][0].prompt}]
    assert row["completion"] == [{"role": "assistant", "content": built["train"][0].completion}]


def test_jsonl_rows_are_trl_prompt_completion(tmp_path: Path) -> None:
    write_dataset(CONFIG, tmp_path / "d")
    first = json.loads((tmp_path / "d" / "train.jsonl").read_text().splitlines()[0])
    assert first["split"] == "train" and first["prompt"][0]["role"] == "user"
    assert first["completion"][0]["content"].startswith("Based on the ")
    assert set(first) >= {"id", "string", "golden_rule", "rule_ids", "position", "answer", "form"}


def test_same_config_same_hash_and_bytes(tmp_path: Path) -> None:
    one = write_dataset(CONFIG, tmp_path / "a")
    two = write_dataset(CONFIG, tmp_path / "b")
    assert one.data_hash == two.data_hash
    for name in ("train.jsonl", "test.jsonl", "heldout.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    three = write_dataset(CONFIG.model_copy(update={"seed": 2}), tmp_path / "c")
    assert three.data_hash != one.data_hash


def test_no_heldout_split_without_heldout_rules(tmp_path: Path) -> None:
    manifest = write_dataset(CONFIG.model_copy(update={"heldout_fraction": 0.0}), tmp_path / "d")
    assert manifest.heldout_rules == () and "heldout" not in manifest.counts
    assert not (tmp_path / "d" / "heldout.jsonl").exists()


def test_existing_folders_are_kept_unless_overwritten(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    write_dataset(CONFIG, folder)
    with pytest.raises(ConfigError, match="is not empty: pick a new folder or pass --overwrite"):
        write_dataset(CONFIG, folder)
    write_dataset(CONFIG.model_copy(update={"limit": 5}), folder, overwrite=True)
    assert read_manifest(folder).counts["train"] == 5
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match=r"no manifest\.json: not a data folder, left as it is"):
        write_dataset(CONFIG, other, overwrite=True)
    assert (other / "notes.txt").read_text() == "mine"


def test_a_folder_without_manifest_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not an IRFT data folder"):
        read_manifest(tmp_path)


def test_a_broken_line_names_file_and_line(tmp_path: Path) -> None:
    write_dataset(CONFIG, tmp_path / "d")
    path = tmp_path / "d" / "test.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], "{not json", *lines[2:]]) + "\n")
    with pytest.raises(DataError, match=r"test.jsonl: line 2: "):
        read_examples(tmp_path / "d", "test")
