"""Suites made once per process: a file or folder of cases is parsed again only when it changes.

One scenarios run needs its cases at several steps in one process (the front end's notes, the
stored config's sizes and protocol, the reply limit, the runner's items: steps the engine calls
with the config alone), and a batch runs the same cases on several models; each asks here, so
a file is read and parsed once. A file is known by its path, inode, size and modification time,
so an edited file is read again; generated suites by their name and seed.
"""

import functools
from collections import OrderedDict
from pathlib import Path

from rulebench.core.cases import TestCase
from rulebench.scenarios.base import Version
from rulebench.scenarios.suites.generated import generate_suite
from rulebench.scenarios.suites.official import load_suite_dir, load_suite_file, suite_files
from rulebench.scenarios.suites.sizes import Suite

MAX_KEPT = 16
"""Files and folders kept: a run names a few (an official release is 3 folders)."""

_Stamp = tuple[tuple[str, int, int, int], ...]
_kept: OrderedDict[tuple[Path, Version, _Stamp], tuple[TestCase, ...]] = OrderedDict()


def suite_path_cases(path: Path, version: Version) -> list[TestCase]:
    """The cases of a `.jsonl` file or a suite folder, parsed once while its files stay unchanged.

    Raises:
        DataError: as `load_suite_file` / `load_suite_dir` (errors are not kept).
    """
    stamp = _stamp(path)
    key = (path.resolve(), version, stamp)
    found = _kept.get(key)
    if found is not None:
        _kept.move_to_end(key)
        return list(found)
    if path.is_dir():
        loaded = load_suite_dir(path, None, version)
    else:
        loaded = load_suite_file(path, version)
    if stamp:  # else a file could not be looked at: nothing tells its next version apart
        _kept[key] = tuple(loaded)
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)
    return loaded


def generated_cases(suite: Suite, seed: int) -> list[TestCase]:
    """A generated suite's cases at its official sizes, made once per (suite, seed)."""
    return list(_generated(suite, seed))


@functools.lru_cache(maxsize=8)
def _generated(suite: Suite, seed: int) -> tuple[TestCase, ...]:
    return tuple(generate_suite(suite, seed))


def _stamp(path: Path) -> _Stamp:
    """What tells a changed file from the one read: each file's name, inode, size and mtime."""
    files = suite_files(path) if path.is_dir() else [path]
    stamps = []
    for file in files:
        try:
            stat = file.stat()
        except OSError:  # the loader says what is wrong with it
            return ()
        stamps.append((str(file), stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return tuple(stamps)
