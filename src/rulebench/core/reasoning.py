"""Splitting a reply into the model's thinking and its answer, however the thinking arrives.

Servers send thinking three ways: in an API field (`reasoning_content` from vLLM/SGLang's
reasoning parsers and DeepSeek, `reasoning` from others), between think tags inside the content
(llama.cpp, Ollama, most local templates), or after a tag the chat template already opened, so
only the closing tag appears. Scoring must read the same answer in every case, so one pure
function does the split and every backend calls it.
"""

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from rulebench.core.messages import DEFAULT_TAGS, Completion, Message, ReasoningTags

__all__ = [
    "DEFAULT_TAGS",
    "ReasoningSplit",
    "ReasoningTags",
    "split_completion",
    "split_reasoning",
    "with_thinking_shown",
]

_BLOCK_GAP = "\n\n"
"""What joins several pieces of thinking into one text: a blank line, as between paragraphs."""


ALL_THINKING = "the reply was all thinking, with no answer after it"
"""A finished thinking and an empty answer: scored as no answer, and said so."""


class ReasoningSplit(BaseModel):
    """A reply's thinking and answer, apart; what had to be guessed is in `warnings`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reasoning: str
    answer: str
    is_unfinished: bool = False
    """The thinking never closed (the reply limit cut it): `answer` is empty."""
    warnings: tuple[str, ...] = ()


class _Scan:
    """The pieces of content on either side of think tags, gathered in order."""

    def __init__(self) -> None:
        self.thinking: list[str] = []
        self.answer: list[str] = []
        self.is_open = False
        self.warnings: list[str] = []

    def add(self, text: str) -> None:
        (self.thinking if self.is_open else self.answer).append(text)


def _scan(content: str, tags: ReasoningTags) -> _Scan:
    """Walk the tags of `content`; text before a first closing tag is thinking (pre-opened)."""
    scan = _Scan()
    pattern = re.compile(f"{re.escape(tags.start)}|{re.escape(tags.end)}")
    position = 0
    is_first = True
    for match in pattern.finditer(content):
        is_end = match.group() == tags.end
        if is_first and is_end:
            # The chat template opened the tag in the prompt: all before it is thinking.
            scan.is_open = True
        elif is_end and not scan.is_open:
            scan.warnings.append(f"a stray {tags.end} outside thinking was dropped")
        elif not is_end and scan.is_open:
            scan.warnings.append(f"a nested {tags.start} inside thinking was dropped")
        scan.add(content[position : match.start()])
        scan.is_open = not is_end
        position = match.end()
        is_first = False
    scan.add(content[position:])
    return scan


def _join_thinking(pieces: list[str]) -> str:
    return _BLOCK_GAP.join(piece.strip() for piece in pieces if piece.strip())


def split_reasoning(
    content: str,
    api_reasoning: str | None = None,
    tags: ReasoningTags = DEFAULT_TAGS,
    is_truncated: bool = False,
) -> ReasoningSplit:
    """Split a reply into thinking and answer; never raises, drops nothing but the tags.

    Args:
        content: The reply's text as the server sent it (may hold think tags).
        api_reasoning: The thinking the API sent in its own field, if any.
        tags: The think tags to split on.
        is_truncated: The reply was cut by the reply limit; with API thinking and no answer,
            the thinking is taken as unfinished.
    """
    api = (api_reasoning or "").strip()
    if tags.start not in content and tags.end not in content:
        # No tags: the content is the answer exactly as sent, as before reasoning existed.
        is_unfinished = is_truncated and bool(api) and not content.strip()
        answer = "" if is_unfinished else content
        silent = bool(api) and not is_unfinished and not content.strip()
        return ReasoningSplit(
            reasoning=api,
            answer=answer,
            is_unfinished=is_unfinished,
            warnings=(ALL_THINKING,) if silent else (),
        )
    scan = _scan(content, tags)
    warnings = scan.warnings
    if len([piece for piece in scan.thinking if piece.strip()]) > 1:
        warnings.append("several think blocks were joined into one reasoning text")
    if api:
        warnings.append("the reply had both API reasoning and think tags; both were kept")
    answer = "".join(scan.answer).strip()
    thinking = [api, *scan.thinking]
    if scan.is_open:
        if answer:
            warnings.append("the answer before an unfinished think block was kept as reasoning")
        thinking = [api, *_ordered_pieces(content, tags)]
        answer = ""
    elif not answer and any(piece.strip() for piece in thinking):
        warnings.append(ALL_THINKING)
    return ReasoningSplit(
        reasoning=_join_thinking(thinking),
        answer=answer,
        is_unfinished=scan.is_open,
        warnings=tuple(warnings),
    )


def with_thinking_shown(messages: Sequence[Message]) -> list[Message]:
    """The conversation as a reader of the thinking sees it: each reply's thinking first.

    What `--judge-reasoning` evaluates: a secret quoted in the thinking is then a leak, as it
    is wherever a model's reasoning is shown to its users.
    """
    return [
        Message(role=m.role, content=f"{m.reasoning}{_BLOCK_GAP}{m.content}") if m.reasoning else m
        for m in messages
    ]


def _ordered_pieces(content: str, tags: ReasoningTags) -> list[str]:
    """All text between tags, in reply order: an unfinished reply keeps it all as thinking."""
    return re.split(f"{re.escape(tags.start)}|{re.escape(tags.end)}", content)


def split_completion(completion: Completion, tags: ReasoningTags = DEFAULT_TAGS) -> Completion:
    """The completion with think tags in its text split out, as every backend and the cache do.

    Local backends (hf, llama.cpp), the scripted model and replies cached before reasoning was
    kept all hold the whole generated text; this one place splits it, so a reply scores the
    same whichever way it came. A reply cut by the reply limit (`finish_reason` "length") with
    thinking still open is flagged unfinished.
    """
    split = split_reasoning(
        completion.text,
        completion.reasoning or None,
        tags,
        is_truncated=completion.finish_reason == "length",
    )
    # A backend that saw its thinking cut without seeing the thinking (OpenAI's reasoning
    # models send only its token count) flagged it already: no text here can undo that.
    is_unfinished = split.is_unfinished or (completion.is_reasoning_unfinished and not split.answer)
    unchanged = (split.answer, split.reasoning) == (completion.text, completion.reasoning)
    if unchanged and is_unfinished == completion.is_reasoning_unfinished:
        return completion
    return completion.model_copy(
        update={
            "text": split.answer,
            "reasoning": split.reasoning,
            "is_reasoning_unfinished": is_unfinished,
            "warnings": completion.warnings + split.warnings,
        }
    )
