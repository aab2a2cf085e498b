"""A run's error results: how many, which messages, and whether resuming can fix them.

A settings or data error (a model that cannot score choices, a malformed record) fails the
same way on every retry, so every view of a run advises a resume only for the others.
"""

import re
from typing import NamedTuple

from rulebench.engine.store.database import Store

MAX_ERRORS_SHOWN = 3
"""The most common error messages a run's views list."""
PERMANENT_ERRORS = ("ConfigError: ", "DataError: ")
"""How the runner labels an item's settings or data error: a retry fails the same way."""
# The runner's reason for a run failed by item errors; `error_lines` says it with better advice.
_ERROR_TALLY = re.compile(r"\d+ of \d+ items ended in an error\b")


class ErrorCounts(NamedTuple):
    """A run's error results, and how many of them a resume cannot fix."""

    total: int
    permanent: int
    common: list[tuple[str, int]]
    """Messages with their counts, most frequent first."""

    @property
    def is_retryable(self) -> bool:
        """Whether resuming would retry at least one error that may not recur."""
        return self.total > self.permanent

    @property
    def advice(self) -> str:
        """What to do about the errors: resume, or fix settings or data first."""
        if not self.permanent:
            return "resume the run to retry them"
        if not self.is_retryable:
            return "settings or data errors: resuming fails the same way until they are fixed"
        return (
            f"resume the run to retry them; the {self.permanent} settings or data errors "
            "fail again until fixed"
        )

    def shown_messages(self) -> list[str]:
        """The most common messages, one line each with its count."""
        return [f"  {count} x {message}" for message, count in self.common[:MAX_ERRORS_SHOWN]]


def count_errors(store: Store, run_id: str) -> ErrorCounts:
    """A run's errors, split into those a resume may fix and those of settings or data."""
    total = store.count_results(run_id)["error"]
    # Asking for `total` messages gets all of them: there are never more messages than errors.
    common = store.common_errors(run_id, total) if total else []
    permanent = sum(count for message, count in common if message.startswith(PERMANENT_ERRORS))
    return ErrorCounts(total, permanent, common)


def is_error_tally(reason: str) -> bool:
    """Whether a run failed only by item errors, which its error lines say with advice."""
    return _ERROR_TALLY.match(reason) is not None


def is_resumable(store: Store, run_id: str, status: str, reason: str) -> bool:
    """Whether `--resume` can change anything: items left to run, or errors worth a retry."""
    if status in ("killed", "interrupted"):
        return True
    if status != "failed":
        return False
    return not is_error_tally(reason) or count_errors(store, run_id).is_retryable
