"""A run's errors: a resume is advised only for those it may fix."""

from rulebench.engine.run_errors import ErrorCounts, is_error_tally


def test_the_advice_follows_which_errors_a_retry_can_fix() -> None:
    assert ErrorCounts(2, 0, []).advice == "resume the run to retry them"
    assert ErrorCounts(2, 2, []).advice.startswith("settings or data errors: resuming fails")
    mixed = ErrorCounts(3, 1, [])
    assert mixed.is_retryable
    assert mixed.advice == (
        "resume the run to retry them; the 1 settings or data errors fail again until fixed"
    )


def test_the_most_common_messages_are_shown_with_their_counts() -> None:
    common = [("TimeoutError: a", 4), ("ConfigError: b", 2), ("c", 1), ("d", 1)]
    assert ErrorCounts(8, 2, common).shown_messages() == [
        "  4 x TimeoutError: a",
        "  2 x ConfigError: b",
        "  1 x c",
    ]


def test_the_runners_error_tally_is_recognised() -> None:
    assert is_error_tally("3 of 5 items ended in an error")
    assert not is_error_tally("the backend went away")
