"""The revision a clone's prompt text came from: the git commit where known, the files' hash."""

import subprocess
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.wording import prompts_label
from rulebench.upstream.clone import describe_clone, git_commit, read_source


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "clone"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "text.py").write_text("TEXT = 'ours'\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "one")
    return root


def test_commit_of_a_clone_from_a_subfolder(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    assert git_commit(repo / "pkg") == head
    record = describe_clone("x/y", repo / "pkg", [repo / "pkg" / "text.py"])
    assert record.revision == f"commit {head}"
    assert prompts_label("upstream", record) == f"prompts: upstream (clone at commit {head[:8]})"


def test_packed_refs_and_detached_head(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    _git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert git_commit(repo) == head
    _git(repo, "checkout", "-q", "--detach")
    assert git_commit(repo) == head


def test_worktree_points_to_its_git_folder(repo: Path, tmp_path: Path) -> None:
    _git(repo, "branch", "side")
    _git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "side")
    assert (tmp_path / "wt" / ".git").is_file()
    assert git_commit(tmp_path / "wt") == _git(repo, "rev-parse", "side")


def test_edited_files_change_the_hash_not_the_commit(repo: Path) -> None:
    text = repo / "pkg" / "text.py"
    before = describe_clone("x/y", repo, [text])
    text.write_text("TEXT = 'edited'\n")
    after = describe_clone("x/y", repo, [text])
    assert before.revision == after.revision
    assert before.files_sha256 != after.files_sha256


def test_a_folder_without_git_is_known_by_its_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")
    record = describe_clone("x/y", tmp_path, [tmp_path / "a.py"])
    assert record.revision == f"files sha256:{record.files_sha256}"
    assert record.short() == f"files {record.files_sha256[:8]}"


def test_missing_file_names_itself_and_its_purpose(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"processor\.py: not found \(the prompts\)"):
        read_source(tmp_path / "processor.py", "the prompts")
    assert prompts_label("rulebench") == "prompts: rulebench"
