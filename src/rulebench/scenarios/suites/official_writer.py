"""Write test cases in upstream's per-behavior JSONL layout, so any suite can be exported.

A generated suite written this way reads back with `load_suite_dir` into the same cases (ids,
categories, params and messages), and upstream's own tools can read it too.
"""

import json
from collections.abc import Iterable
from pathlib import Path

from rulebench.core.cases import TestCase
from rulebench.core.errors import DataError


def write_suite(cases: Iterable[TestCase], path: Path) -> list[Path]:
    """Write `path/<suite>/<behavior>.jsonl` files, one line per case, in the cases' order.

    Existing files of the same names are replaced: a file holds exactly the cases given.
    Cases without a suite name go straight into `path`. Returns the files written.
    """
    lines: dict[Path, list[str]] = {}
    for case in cases:
        file = (path / case.suite if case.suite else path) / f"{case.behavior}.jsonl"
        lines.setdefault(file, []).append(_record_line(case))
    for file, texts in lines.items():
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text("".join(texts), encoding="utf-8")
        except OSError as exc:
            raise DataError(f"{file}: cannot write: {exc.strerror}") from None
    return list(lines)


def _record_line(case: TestCase) -> str:
    record = {
        "id": case.id,
        "category": case.category,
        "params": case.params,
        "messages": [{"role": m.role, "content": m.content} for m in case.messages],
    }
    return json.dumps(record, ensure_ascii=False) + "\n"
