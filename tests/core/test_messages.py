"""Completions keep the thinking apart from the answer, and usage counts reasoning tokens."""

from rulebench.core.messages import Completion, Usage


def test_usage_sums_reasoning_tokens() -> None:
    total = Usage(completion_tokens=10, reasoning_tokens=7) + Usage(
        completion_tokens=5, reasoning_tokens=2
    )
    assert (total.completion_tokens, total.reasoning_tokens) == (15, 9)


def test_a_completion_without_reasoning_is_as_before() -> None:
    completion = Completion(text="Answer: (B)")
    assert completion.reasoning == ""
    assert completion.is_reasoning_unfinished is False
    assert completion.usage.reasoning_tokens == 0


def test_an_unfinished_thinking_has_an_empty_flagged_answer() -> None:
    completion = Completion(text="", reasoning="Maybe (A)", is_reasoning_unfinished=True)
    assert completion.text == ""
    assert completion.is_reasoning_unfinished
