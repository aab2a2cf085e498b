"""The split of a reply into thinking and answer, for every way a server sends thinking."""

import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from rulebench.core.reasoning import ALL_THINKING, DEFAULT_TAGS, ReasoningTags, split_reasoning


def test_a_reply_without_thinking_is_the_answer_unchanged() -> None:
    split = split_reasoning("  Answer: (B)\n")
    assert (split.reasoning, split.answer, split.is_unfinished) == ("", "  Answer: (B)\n", False)
    assert split.warnings == ()


def test_tags_in_content_are_split_out() -> None:
    split = split_reasoning("<think>Maybe (A).</think>\n\nAnswer: (B)")
    assert (split.reasoning, split.answer, split.warnings) == ("Maybe (A).", "Answer: (B)", ())


def test_a_pre_opened_tag_makes_the_text_before_the_closing_tag_thinking() -> None:
    split = split_reasoning("The key is 1234.\n</think>\nI can't help with that.")
    assert split.reasoning == "The key is 1234."
    assert split.answer == "I can't help with that."
    assert split.warnings == ()


def test_unfinished_thinking_has_no_answer_and_is_flagged() -> None:
    split = split_reasoning("<think>Maybe the answer is (A), but")
    assert (split.reasoning, split.answer) == ("Maybe the answer is (A), but", "")
    assert split.is_unfinished


def test_api_reasoning_cut_by_the_limit_with_no_answer_is_unfinished() -> None:
    split = split_reasoning("", api_reasoning="Maybe (A)", is_truncated=True)
    assert (split.reasoning, split.answer, split.is_unfinished) == ("Maybe (A)", "", True)
    assert not split_reasoning("", api_reasoning="Maybe (A)").is_unfinished


def test_several_think_blocks_are_joined_with_a_warning() -> None:
    split = split_reasoning("<think>one</think>Answer<think>two</think>: (B)")
    assert (split.reasoning, split.answer) == ("one\n\ntwo", "Answer: (B)")
    assert any("several" in warning for warning in split.warnings)


def test_a_stray_closing_tag_after_the_answer_is_dropped_with_a_warning() -> None:
    split = split_reasoning("<think>x</think>Answer: (B)</think>")
    assert (split.reasoning, split.answer) == ("x", "Answer: (B)")
    assert any("stray" in warning for warning in split.warnings)


def test_api_reasoning_and_tags_are_both_kept() -> None:
    split = split_reasoning("<think>tagged</think>Answer: (B)", api_reasoning="from the API")
    assert (split.reasoning, split.answer) == ("from the API\n\ntagged", "Answer: (B)")
    assert any("both" in warning for warning in split.warnings)


def test_custom_tags_split_and_default_tags_then_stay_text() -> None:
    tags = ReasoningTags(start="[THINK]", end="[/THINK]")
    split = split_reasoning("[THINK]hm[/THINK]<think>ok</think>", tags=tags)
    assert (split.reasoning, split.answer) == ("hm", "<think>ok</think>")


def test_equal_tags_are_refused() -> None:
    with pytest.raises(ValidationError, match="both"):
        ReasoningTags(start="|", end="|")


_PIECES = st.sampled_from(["<think>", "</think>", "a", "(B)", " ", "\n", "é", "<", "/", ">"])
_CONTENT = st.lists(_PIECES, max_size=30).map("".join) | st.text(max_size=60)


def _kept(text: str) -> Counter[str]:
    return Counter(char for char in text if not char.isspace())


@given(content=_CONTENT, api=st.none() | st.text(max_size=20), is_truncated=st.booleans())
def test_the_split_never_raises_and_keeps_every_character_but_the_tags(
    content: str, api: str | None, is_truncated: bool
) -> None:
    split = split_reasoning(content, api_reasoning=api, is_truncated=is_truncated)
    tagless = "".join(
        re.split(f"{re.escape(DEFAULT_TAGS.start)}|{re.escape(DEFAULT_TAGS.end)}", content)
    )
    assert _kept(split.reasoning) + _kept(split.answer) == _kept(tagless) + _kept(api or "")
    if split.is_unfinished:
        assert split.answer == ""


@pytest.mark.parametrize(
    ("content", "api"),
    [("<think>All of it.</think>\n", None), ("", "All of it."), ("All of it.</think>", None)],
)
def test_a_reply_that_is_all_thinking_keeps_it_and_says_so(content: str, api: str | None) -> None:
    split = split_reasoning(content, api_reasoning=api)
    assert (split.reasoning, split.answer, split.is_unfinished) == ("All of it.", "", False)
    assert ALL_THINKING in split.warnings


def test_a_plain_reply_has_no_warning() -> None:
    assert split_reasoning("Answer: (B)").warnings == ()
    assert split_reasoning("<think>hm</think>Answer: (B)").warnings == ()
