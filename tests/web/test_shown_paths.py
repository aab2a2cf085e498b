"""Files and folders are named whole on a loopback server and by bare name for others."""

from pathlib import Path

from rulebench.web.app import create_app
from rulebench.web.playground.saved_page import saved_listing
from rulebench.web.shown_paths import shown_path

from tests.web.explorer_store import synthetic_run


def test_a_path_is_shown_whole_or_by_its_bare_name(tmp_path: Path) -> None:
    path = tmp_path / "cases" / "Encryption_no_reveal.jsonl"
    assert shown_path(path, show_paths=True) == str(path)
    assert shown_path(path, show_paths=False) == "Encryption_no_reveal.jsonl"
    assert shown_path(Path("cases"), show_paths=False) == "cases"


def test_the_store_and_save_folder_follow_the_same_rule(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 1)
    for show in (True, False):
        app = create_app(store, show_paths=show)
        assert app.state.store_label == shown_path(store, show)
        listing = saved_listing(tmp_path / "cases", show)
        assert listing["save_dir"] == shown_path(tmp_path / "cases", show)
