"""The Python API's `shard=` option: a shard's run as `--shard` makes it; bad values one line."""

from pathlib import Path

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.errors import ConfigError
from rulebench.core.shards import Shard
from rulebench.engine.store.database import Store

CONFIG: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 4}


def item_ids(store: Path, run_id: str) -> set[str]:
    with Store(store, readonly=True) as db:
        return {row.item_id for row in db.iter_results(run_id)}


def test_the_shards_of_a_run_split_its_items(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    whole = rulebench.run("inferential", "scripted/echo", config=CONFIG, store=store)
    text = rulebench.run("inferential", "scripted/echo", config=CONFIG, store=store, shard="1/2")
    typed = rulebench.run(
        "inferential", "scripted/echo", config=CONFIG, store=store, shard=Shard(index=2, count=2)
    )
    assert text.run.config["shard"] == {"index": 1, "count": 2}
    assert typed.run.config["shard"] == {"index": 2, "count": 2}
    first, second = item_ids(store, text.run.id), item_ids(store, typed.run.id)
    assert first and second and not first & second
    assert first | second == item_ids(store, whole.run.id)
    with Store(store, readonly=True) as db:
        notes = db.get_run(text.run.id).notes["shard"]
    assert isinstance(notes, dict) and notes["whole_items"] == len(first | second)


def test_auto_reads_the_scheduler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID", raising=False)
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "2")
    report = rulebench.run("smoke", "scripted/echo", store=tmp_path / "s.sqlite", shard="auto/4")
    assert report.run.config["shard"] == {"index": 3, "count": 4}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0/4", "run smoke: shard '0/4': shard 0 of 4 does not exist"),
        ("5/4", "run smoke: shard '5/4': shard 5 of 4 does not exist"),
        ("x/y", "run smoke: shard 'x/y': I must be a whole number"),
        ("2", "run smoke: shard '2': expected I/N"),
    ],
)
def test_a_bad_shard_is_one_config_error_line(tmp_path: Path, value: str, expected: str) -> None:
    store = tmp_path / "s.sqlite"
    with pytest.raises(ConfigError) as raised:
        rulebench.run("smoke", "scripted/echo", store=store, shard=value)
    assert str(raised.value).startswith(expected) and "\n" not in str(raised.value)
    assert not store.exists()


def test_a_shard_of_another_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^run smoke: shard"):
        # A caller without type checking may pass anything.
        rulebench.run("smoke", "scripted/echo", store=tmp_path / "s.sqlite", shard=3)  # type: ignore[arg-type]
