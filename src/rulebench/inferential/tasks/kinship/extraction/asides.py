"""Dropping the explanation a reply gives right after its kinship label.

"nephew (his mother is her sister)" answers nephew: the aside explains the label, and the kin
terms in it (mother, sister) are not answers. Paper mode reads the last label in the reply, so an
aside that mentions another kin term overrides the label it explains.
"""

import re

from rulebench.inferential.tasks.kinship.extraction.chains import (
    RELATION_WORDS,
    UNLISTED,
    relation_word_pattern,
)

_RELATION = relation_word_pattern((*RELATION_WORDS, UNLISTED))
_RELATION_WORD = re.compile(_RELATION)

CORRECTION_CUE = re.compile(
    r"\b(?:wait|actually|correction|i\s+mean|sorry|oops|scratch\s+that|on\s+second\s+thought"
    r"|let\s+me\s+correct(?:\s+that|\s+myself)?|i\s+was\s+wrong|my\s+mistake|(?:or\s+)?rather"
    r"|no(?=\s*[,:;.!—–-]))\b"
)
"""Words that take back what came before them ("wait", "actually", "I mean", "no,")."""

CONCLUSION_CUE = (
    r"\b(?:so|therefore|thus|hence|consequently|finally|ultimately|overall|in\s+conclusion"
    r"|in\s+summary|in\s+short|as\s+a\s+result|(?:this|which|that)\s+means(?:\s+that)?"
    r"|meaning(?:\s+that)?|it\s+follows\s+that|we\s+(?:can\s+)?(?:conclude|infer|deduce|see)"
    r"\s+that)\b"
)
"""Words that introduce a conclusion: an aside ends where one begins."""

_PARENTHESIS = re.compile(r"\s*\(([^()\n]*)\)")
_EXPLAINS = (
    r"(?:because|since|as(?!\s+a\s+result)|given\s+that|namely|that\s+is|being"
    r"|(?:this|that)\s+is\s+because|that's\s+because|the\s+reason\s+(?:is|being))\b"
)
_BECAUSE = r"(?:because|(?:this|that)\s+is\s+because|that's\s+because|the\s+reason\s+is)\b"
# An aside runs to the end of its sentence, a conclusion, or a new clause with a one-word subject
# ("since Bob is her brother, Kim is her niece": the aside ends before "Kim is").
_ASIDE_END = (
    rf"(?=[.!?\n]|$|[,;]?\s*{CONCLUSION_CUE}"
    r"|,\s*\[?[a-z]+\]?\s+(?:is|was|would\s+be|must\s+be|should\s+be)\b)"
)
_ASIDE = re.compile(
    rf"(?P<label>{_RELATION}\}}?)(?P<aside>"
    rf"(?:\s*[,;:]?\s*(?:{_EXPLAINS}|(?:his|her|their)\b)"
    rf"|\.\s+{_BECAUSE}"
    r"|\s+-{1,2}\s+|\s*[—–]\s*)"
    rf"[^.!?\n]*?){_ASIDE_END}"
)


def _drop_parenthesis(match: re.Match[str], labels_from: int) -> str:
    inside = match.group(1)
    is_aside = (
        match.start() >= labels_from
        and _RELATION_WORD.search(inside) is not None
        and CORRECTION_CUE.search(inside) is None
    )
    return " " if is_aside else match.group()


def _drop_aside(match: re.Match[str]) -> str:
    if CORRECTION_CUE.search(match.group("aside")):
        return match.group()
    return match.group("label")


def drop_explanations_after_labels(text: str) -> str:
    """Fix: a kin term in the explanation after a label overrides it (paper mode reads the last).

    Dropped: a parenthesis after the first relation word that mentions a relation word, and the
    rest of the sentence after a label that goes on with a dash, or with "because", "since",
    "as", "namely", "his/her/their ..." (up to a conclusion such as "so" or "which means").
    An aside that takes the label back ("nephew (wait, niece)") is kept. Expects lowercase text.
    """
    first = _RELATION_WORD.search(text)
    if first is None:
        return text
    text = _PARENTHESIS.sub(lambda match: _drop_parenthesis(match, first.end()), text)
    return _ASIDE.sub(_drop_aside, text)
