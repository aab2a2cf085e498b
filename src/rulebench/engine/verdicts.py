"""A result's verdict, read one way in Python and in SQL, and the names the explorer's SQL takes.

Shared by the explorer's reads (`browse`, `result_order`), search and the kept sums, so that a
page, a search hit and a tally say the same of one result.
"""

import re
from collections.abc import Callable
from typing import Any, Literal

from rulebench.core.errors import ConfigError
from rulebench.core.items import ItemResult

Query = Callable[[str, tuple[object, ...]], list[Any]]
Verdict = Literal["passed", "failed", "excluded", "error"]
VERDICTS: tuple[Verdict, ...] = ("passed", "failed", "excluded", "error")

_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def verdict_of(result: ItemResult) -> Verdict:
    """A result's verdict, read as `verdict_sql` reads a row."""
    outcome = result.outcome
    if outcome is None:
        return "error"
    if outcome.passed is not None:
        return "passed" if outcome.passed else "failed"
    if outcome.score is None:
        return "excluded"
    return "passed" if outcome.score >= 1.0 else "failed"


def verdict_sql(table: str = "") -> str:
    """A result's verdict: a rule check's pass/fail, else a score of 1 (correct) or below.

    The same reading as the reports: `passed` where a task gives a verdict (scenarios), else
    the score; a finished item with neither is "excluded" (e.g. a refusal a task leaves out).
    """
    t = f"{table}." if table else ""
    return (
        f"CASE WHEN {t}status = 'error' THEN 'error' "
        f"WHEN {t}passed IS NOT NULL THEN (CASE WHEN {t}passed THEN 'passed' ELSE 'failed' END) "
        f"WHEN {t}score IS NULL THEN 'excluded' "
        f"WHEN {t}score >= 1.0 THEN 'passed' ELSE 'failed' END"
    )


def metadata_path(field: str) -> str:
    """The JSON path of a top-level metadata field; a name that is no identifier is refused."""
    if not _FIELD_NAME.fullmatch(field):
        raise ConfigError(f"metadata field '{field}' is not a plain name (letters, digits, _)")
    return f'$."{field}"'
