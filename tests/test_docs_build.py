"""The documentation site builds strictly, and its generated reference follows the code."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).parent / "mkdocs"


@pytest.mark.subprocess
def test_strict_build_renders_every_visible_command_and_no_hidden_one(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(MKDOCS.parent), "HOME": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    shown = ("rulebench run inferential", "rulebench attack transfer", "rulebench train irft")
    for command in shown:
        assert command in cli
    assert "--per-group" in cli
    assert "rulebench irft" not in cli  # the hidden old name of `train`
    assert "<!-- rulebench-cli -->" not in cli
    scoring = (site / "reference" / "scoring" / "index.html").read_text(encoding="utf-8")
    assert "literal-user-names" in scoring
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "build_report" in api
