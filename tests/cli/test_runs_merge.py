"""`rulebench runs merge` and what `runs show` says of a run joined from shards."""

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench import __version__
from rulebench.cli.app import app
from rulebench.core.errors import StoreError
from rulebench.engine.store.database import Store

from tests.command import assert_one_line_error, rulebench


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_show_names_the_missing_shard_and_how_to_run_it(tmp_path: Path) -> None:
    stores = [str(tmp_path / f"s{index}.sqlite") for index in (1, 2, 3)]
    for index, store in enumerate(stores[:2], 1):
        code, _, _ = invoke(
            "run", "smoke", "-m", "scripted/echo", "--store", store, "--shard", f"{index}/3"
        )
        assert code == 0
    target = str(tmp_path / "t.sqlite")
    code, merged, _ = invoke("runs", "merge", *stores[:2], "--into", target)
    assert code == 0 and "sharded run sharded-" in merged
    code, shown, said = invoke("runs", "show", "sharded-", "--store", target)
    assert "status: partial" in shown
    assert "why partial: not merged yet: shard 3/3" in said
    assert "--shard 3/3" in said and "rulebench runs merge" in said
    try:
        invoke("run", "--resume", "sharded-", "--store", target)
    except StoreError as exc:
        assert "joined from shards" in str(exc)
    else:
        raise AssertionError("a run joined from shards was resumed in the target")


@pytest.mark.subprocess
def test_shards_run_with_different_options_are_one_red_line_naming_the_field(
    tmp_path: Path,
) -> None:
    stores = [tmp_path / "s1.sqlite", tmp_path / "s2.sqlite"]
    run = ("run", "inferential", "--task", "kinship", "--limit", "8", "-m", "scripted/echo")
    assert rulebench(*run, "--store", str(stores[0]), "--shard", "1/2").returncode == 0
    longer = ("--max-tokens", "64", "-c", "2")  # the concurrency may differ, the limit not
    assert rulebench(*run, *longer, "--store", str(stores[1]), "--shard", "2/2").returncode == 0
    target = tmp_path / "t.sqlite"
    refused = rulebench("runs", "merge", *map(str, stores), "--into", str(target))
    assert_one_line_error(refused, "generate.max_tokens is ", "but 64 in shard 2/2", str(stores[1]))
    with Store(target, readonly=True) as store:  # the first shard went in; it waits for 2/2
        [run_record] = store.list_runs()
        assert run_record.status == "partial"


@pytest.mark.subprocess
def test_a_store_from_a_newer_rulebench_is_one_red_line_naming_both_versions(
    tmp_path: Path,
) -> None:
    source = tmp_path / "s.sqlite"
    code, _, _ = invoke("run", "smoke", "-m", "scripted/echo", "--store", str(source))
    assert code == 0
    db = sqlite3.connect(source, isolation_level=None)
    db.execute("INSERT INTO _migrations VALUES ('900_later', datetime('now'))")
    db.execute("UPDATE runs SET version = '3.0.0'")
    db.close()
    refused = rulebench("runs", "merge", str(source), "--into", str(tmp_path / "t.sqlite"))
    assert_one_line_error(refused, "rulebench 3.0.0", f"this rulebench {__version__}")
    assert not (tmp_path / "t.sqlite").exists()
