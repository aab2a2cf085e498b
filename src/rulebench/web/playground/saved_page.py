"""The saved-cases page's listing: the save folder's files a page at a time, with the count.

The folder can hold any number of files (each read whole to list its cases), so the page
shows a slice of them and says how many there are, rather than the first hundred in silence.
The folder is named by its bare name when others reach the server.
"""

from pathlib import Path

from rulebench.web.paging import Pager
from rulebench.web.playground.play_view import saved_view
from rulebench.web.playground.saved_cases import MAX_FILES_LISTED, list_saved, saved_names
from rulebench.web.shown_paths import shown_path


def saved_listing(save_dir: Path, show_paths: bool, page: int = 1) -> dict[str, object]:
    """The page's context: the folder as shown, the page's files, the pager and its links."""
    pager = Pager(page, MAX_FILES_LISTED, len(saved_names(save_dir)))
    return {
        "save_dir": shown_path(save_dir, show_paths),
        "files": saved_view(list_saved(save_dir, pager.offset, pager.size)),
        "pager": pager,
        "links": pager.links("/play/saved", {}),
    }
