"""A store on read-only media can be listed, shown, exported and reported without a write."""

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store

from tests.command import rulebench
from tests.read_only import read_only_view_of

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(writable folder, the same folder seen read-only)."""
    with read_only_view_of(tmp_path) as (source, view, _):
        yield source, view


def test_a_store_on_read_only_media_is_read_without_a_write(
    read_only_folder: tuple[Path, Path], tmp_path: Path
) -> None:
    source, view = read_only_folder
    made = rulebench("run", "smoke", "-m", "scripted/echo", "--store", str(source / "s.sqlite"))
    assert made.returncode == 0, made.stderr
    if source == view:
        (source / "s.sqlite").chmod(stat.S_IRUSR)
        source.chmod(stat.S_IRUSR | stat.S_IXUSR)
    before = sorted(p.name for p in view.iterdir())
    store = str(view / "s.sqlite")
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
    for command in (
        ["runs", "list"],
        ["runs", "show", run.id],
        ["runs", "export", run.id, "-o", str(tmp_path / "out.jsonl")],
    ):
        result = rulebench(*command, "--store", store)
        assert result.returncode == 0, (command, result.stderr)
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 6
    assert sorted(p.name for p in view.iterdir()) == before
    writing = rulebench("run", "smoke", "-m", "scripted/echo", "--store", store)
    assert writing.returncode == 1 and "error: cannot open the results store" in writing.stderr
