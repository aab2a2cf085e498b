"""Packages "installed" in a folder on sys.path: a dist-info with entry points, as pip leaves."""

from pathlib import Path


def install_dist(
    site: Path, dist: str, group: str, entries: dict[str, str], modules: dict[str, str]
) -> None:
    """Write `dist`'s metadata declaring `entries` in `group`, and its modules' source."""
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[{group}]\n{lines}")
    for module, text in modules.items():
        (site / f"{module}.py").write_text(text)
