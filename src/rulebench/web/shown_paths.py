"""How a page names a file or folder of the server: whole, or by its bare name.

A server others reach (`serve --allow-remote`) must not show where its files live, so the
store, the save folder and saved files are named by their last part there; on a loopback
server the whole path is shown, as the CLI shows it. Every page asks here, so the two rules
never drift apart.
"""

from pathlib import Path


def shown_path(path: Path, show_paths: bool) -> str:
    """`path` as a page shows it: the path as given, or only its name (`show_paths` False)."""
    return str(path) if show_paths else path.name
