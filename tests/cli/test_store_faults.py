"""A store damaged during a run, or on read-only media, ends `rulebench run` in one line."""

import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store

from tests.command import assert_one_line_error, rulebench
from tests.read_only import read_only_view_of

pytestmark = pytest.mark.subprocess  # runs the real entry point, as a user would

DAMAGING = (
    "from pathlib import Path\n"
    "from rulebench.engine import catalog\n"
    "from tests.engine import damaged_store\n"
    "damaged_store.TARGET.append(Path({store!r}))\n"
    "catalog.TASKS['loadtest'] = catalog.TASKS['loadtest']._replace(\n"
    "    target='tests.engine.damaged_store:DamagingLoadTest')\n"
)


def stored_statuses(path: Path) -> list[str]:
    """The runs' statuses, read past the damaged page that keeps rulebench from opening it."""
    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return [status for (status,) in connection.execute("SELECT status FROM runs")]
    finally:
        connection.close()


def test_a_store_damaged_during_a_run_fails_the_command_in_one_line(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    Store(store).close()  # made and closed: its pages are in the file, not the write-ahead log
    result = rulebench(
        "run", "loadtest", "-n", "40", "-m", "scripted/echo", "--store", str(store),
        preamble=DAMAGING.format(store=str(store)),
    )  # fmt: skip
    assert_one_line_error(result, f"the results store {store} is damaged", "restore")
    assert stored_statuses(store) == ["failed"]


@pytest.fixture
def read_only_view(tmp_path: Path) -> Iterator[tuple[Path, Path, str]]:
    """(writable folder, the same seen read-only, what the error must say about it).

    As root: a read-only bind mount, real read-only media. Else permissions, which bind an
    ordinary user (and not root), and the error names them instead.
    """
    with read_only_view_of(tmp_path) as (source, view, is_media):
        yield source, view, "its file system is read-only" if is_media else "no permission to write"


def test_resuming_on_read_only_media_says_so(read_only_view: tuple[Path, Path, str]) -> None:
    source, view, expected = read_only_view
    rules = source / "rules.json"
    rules.write_text('[{"contains": "", "error": "boom", "transient": false}]')
    failed = rulebench(
        "run", "loadtest", "-n", "5", "-m", "scripted/rules", "-M", f"rules={rules}",
        "--store", str(source / "s.sqlite"),
    )  # fmt: skip
    assert failed.returncode == 1, failed.stderr
    if source == view:
        (source / "s.sqlite").chmod(stat.S_IRUSR)
        source.chmod(stat.S_IRUSR | stat.S_IXUSR)
    store = view / "s.sqlite"
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
    resumed = rulebench("run", "--resume", run.id, "--store", str(store))
    assert_one_line_error(resumed, f"cannot open the results store at {store}: {expected}")
    with Store(store, readonly=True) as db:
        assert db.get_run(run.id).status == "failed"
