"""A user's clone of an upstream repository: which revision it is, and its files read safely.

Upstream's prompt text is read from the user's checkout at run time (its sentences are not
ours to ship). A run records which revision the text came from: the git commit when the folder
is a clone (read from `.git` directly, so no git binary is needed), and always a hash of the
exact files read, so a locally edited checkout is never mistaken for the commit it sits on.
"""

import hashlib
from collections.abc import Sequence
from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.core.wording import UpstreamText

_MAX_PARENTS = 8
"""How far above the folder that holds the prompt files a `.git` is looked for."""


def read_source(path: Path, what: str) -> str:
    """A text file of the clone; missing or unreadable is one error naming file and purpose."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: not found ({what})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({what}): {exc}") from None


def describe_clone(project: str, root: Path, files: Sequence[Path]) -> UpstreamText:
    """The record of a clone: its commit where it is a git checkout, and the files' hash."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    files_sha256 = digest.hexdigest()
    commit = git_commit(root)
    revision = f"commit {commit}" if commit else f"files sha256:{files_sha256}"
    return UpstreamText(
        project=project, root=str(root.resolve()), revision=revision, files_sha256=files_sha256
    )


def git_commit(start: Path) -> str | None:
    """The commit checked out in the git repository holding `start`, or None.

    Reads `.git/HEAD`, a loose ref or `packed-refs`; a `.git` file (a worktree or submodule)
    points to the real git folder. Anything unreadable or unexpected means "not known".
    """
    folder = start.resolve()
    for candidate in [folder, *folder.parents][:_MAX_PARENTS]:
        git_dir = _git_dir(candidate / ".git")
        if git_dir is not None:
            return _resolve_head(git_dir)
    return None


def _git_dir(dot_git: Path) -> Path | None:
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        try:
            line = dot_git.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if line.startswith("gitdir:"):
            target = Path(line.removeprefix("gitdir:").strip())
            return target if target.is_absolute() else (dot_git.parent / target).resolve()
    return None


def _resolve_head(git_dir: Path) -> str | None:
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not head.startswith("ref:"):
        return head if _is_sha(head) else None
    ref = head.removeprefix("ref:").strip()
    # A worktree keeps its refs in the common git folder.
    common = git_dir
    if (git_dir / "commondir").is_file():
        try:
            common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
        except OSError:
            return None
    for folder in (git_dir, common):
        loose = folder / ref
        if loose.is_file():
            try:
                value = loose.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                return None
            return value if _is_sha(value) else None
    return _packed_ref(common / "packed-refs", ref)


def _packed_ref(packed: Path, ref: str) -> str | None:
    try:
        lines = packed.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        sha, _, name = line.partition(" ")
        if name.strip() == ref and _is_sha(sha):
            return sha
    return None


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
