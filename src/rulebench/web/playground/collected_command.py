"""The CLI command that makes chosen collected cases a stored run, and what it really runs.

`rulebench run scenarios -s FILE` runs a file whole and reads every file of a run under one
rule version, so a command can only be as fine as the save folder's files: the files holding
the chosen cases are named (the folder itself only when they are all of it), the cases of
v1-only scenarios (Hodor) get their own `--version v1` command, and the page says how many
cases the commands run beside the ones chosen, rather than claim they run the filter.
"""

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rulebench.core.cases import TestCase
from rulebench.scenarios.played import record_of
from rulebench.web.shown_paths import shown_path

Chosen = Sequence[tuple[str, TestCase]]
"""(file name in the save folder, case) pairs."""


@dataclass(frozen=True)
class CollectedCommand:
    """The commands for a choice of cases and how many cases they run."""

    commands: tuple[str, ...]
    """One per rule version among the chosen cases (none when nothing is chosen)."""
    files: tuple[str, ...]
    """The save-folder files the commands read, by name."""
    chosen: int
    runs: int
    """Cases the commands run: the whole of each file named."""

    @property
    def extra(self) -> int:
        """Cases the commands run that were not chosen (other cases of the same files)."""
        return self.runs - self.chosen


@dataclass(frozen=True)
class Folder:
    """The save folder as the command names it, and whether `-s FOLDER` reads only its cases."""

    path: Path
    show_paths: bool
    whole: bool
    """True when `-s FOLDER` would read exactly the listed files (no other .jsonl, none
    unreadable), so naming the folder runs the same as naming each file."""

    def source(self, name: str | None) -> str:
        """`-s` value for one file of the folder, or the folder itself (None)."""
        shown = shown_path(self.path, self.show_paths)
        return shown if name is None else (Path(shown) / name).as_posix()


def collected_command(
    picked: Chosen,
    every: Chosen,
    folder: Folder,
    model: str,
    upstream: str | None,
) -> CollectedCommand:
    """The `run scenarios` commands that run `picked` (each file holding one, whole).

    `every` is the save folder's readable cases; `upstream` the clone a case played in
    upstream's wording needs (`PATH` stands in when the server has none or hides it).
    """
    names = sorted({name for name, _ in picked})
    held = [(name, case) for name, case in every if name in set(names)]
    all_names = sorted({name for name, _ in every})
    commands = []
    for version in ("v3", "v1"):
        files = sorted({name for name, case in held if case.version == version})
        if not files:
            continue
        use_folder = folder.whole and files == all_names
        sources = [folder.source(None)] if use_folder else [folder.source(f) for f in files]
        words = ["rulebench", "run", "scenarios"]
        for source in sources:
            words += ["-s", source]
        words += ["-m", model]
        if version != "v3":
            words += ["--version", version]
        if any(_upstream_wording(case) for name, case in held if name in files):
            words += ["--upstream", upstream or "PATH"]
        commands.append(shlex.join(words))
    return CollectedCommand(tuple(commands), tuple(names), len(picked), len(held))


def _upstream_wording(case: TestCase) -> bool:
    record = record_of(case)
    return record is not None and record.protocol.prompts == "upstream"
