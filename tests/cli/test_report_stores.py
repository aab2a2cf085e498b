"""`rulebench report` over several stores: runs read where they lie equal the runs merged.

Real runs of scripted models in real stores; the one-store version is built with
`rulebench runs merge`, the command a user would otherwise run first.
"""

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.core.errors import StoreError
from rulebench.engine.store.database import Store

from tests.command import assert_one_line_error, rulebench

runner = CliRunner()


def invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def scenarios_run(store: Path, model: str) -> str:
    invoke("run", "scenarios", "-s", "basic", "-m", model, "--store", str(store))
    with Store(store, readonly=True) as db:
        return db.list_runs(1)[0].id


@pytest.fixture
def two_stores(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """A passing and a failing scenarios run, each in a store of its own."""
    first, second = tmp_path / "echo.sqlite", tmp_path / "fixed.sqlite"
    return (
        first,
        second,
        scenarios_run(first, "scripted/echo"),
        scenarios_run(second, "scripted/fixed"),
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_runs_of_two_stores_report_as_the_merged_store(
    tmp_path: Path, two_stores: tuple[Path, Path, str, str]
) -> None:
    first, second, run_a, run_b = two_stores
    merged = tmp_path / "merged.sqlite"
    invoke("runs", "merge", str(first), str(second), "--into", str(merged))
    apart, joined = tmp_path / "apart", tmp_path / "joined"
    stores = ["--store", str(first), "--store", str(second)]
    invoke("report", run_a, run_b, *stores, "-o", str(apart))
    invoke("report", run_a, run_b, "--store", str(merged), "-o", str(joined))
    report = (apart / "report.md").read_bytes()
    assert report == (joined / "report.md").read_bytes()
    assert b"McNemar" in report  # the paired comparison spans the two stores
    as_json = invoke("report", run_a, run_b, *stores, "--json").stdout
    assert as_json == invoke("report", run_a, run_b, "--store", str(merged), "--json").stdout


def test_a_folder_stands_for_its_stores(
    tmp_path: Path, two_stores: tuple[Path, Path, str, str]
) -> None:
    first, second, run_a, run_b = two_stores
    one = invoke("report", run_a, run_b, "--store", str(first), "--store", str(second)).stdout
    assert invoke("report", run_a, run_b, "--store", str(tmp_path)).stdout == one


def test_a_copied_store_holds_the_same_runs(
    tmp_path: Path, two_stores: tuple[Path, Path, str, str]
) -> None:
    first, _, run_a, _ = two_stores
    copy = tmp_path / "copy.sqlite"
    shutil.copy(first, copy)
    alone = invoke("report", run_a, "--store", str(first)).stdout
    assert invoke("report", run_a, "--store", str(first), "--store", str(copy)).stdout == alone


def test_one_id_with_two_contents_names_both_stores(
    tmp_path: Path, two_stores: tuple[Path, Path, str, str]
) -> None:
    first, _, run_a, _ = two_stores
    changed = tmp_path / "changed.sqlite"
    shutil.copy(first, changed)
    with sqlite3.connect(changed) as connection:
        connection.execute("UPDATE results SET reply = 'another reply' WHERE rowid = 1")
    connection.close()
    result = rulebench("report", run_a, "--store", str(first), "--store", str(changed))
    assert_one_line_error(result, f"run {run_a}", str(first), str(changed), "different content")


def test_an_unknown_run_names_every_store(two_stores: tuple[Path, Path, str, str]) -> None:
    first, second, _, _ = two_stores
    result = runner.invoke(app, ["report", "nope", "--store", str(first), "--store", str(second)])
    assert isinstance(result.exception, StoreError)
    assert str(first) in str(result.exception) and str(second) in str(result.exception)


def damaged(path: Path) -> None:
    """Overwrite the pages after the first (the schema's and the data's) with noise."""
    data = path.read_bytes()
    noise = bytes(range(256)) * (len(data) // 256 + 1)
    path.write_bytes(data[:4096] + noise[: len(data) - 4096])


def from_newer_rulebench(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("INSERT INTO _migrations VALUES ('9999_from_the_future', 'now')")
    connection.close()


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (None, "no results store at"),
        (damaged, ""),
        (from_newer_rulebench, "newer rulebench"),
    ],
)
def test_a_bad_store_among_several_is_one_line_naming_it(
    tmp_path: Path,
    two_stores: tuple[Path, Path, str, str],
    spoil: object,
    said: str,
) -> None:
    first, second, run_a, run_b = two_stores
    bad = tmp_path / "bad.sqlite"
    if callable(spoil):
        shutil.copy(second, bad)
        spoil(bad)
    before = digest(bad) if bad.exists() else None
    out = tmp_path / "out"
    args = ["--store", str(first), "--store", str(bad), "-o", str(out)]
    result = rulebench("report", run_a, run_b, *args)
    assert_one_line_error(result, str(bad), said)
    assert (digest(bad) if bad.exists() else None) == before
    assert not out.exists()
