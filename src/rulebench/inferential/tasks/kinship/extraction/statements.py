"""Where a kinship reply states its answer, so that later mentions of kin terms do not override it.

A reply states its answer with an answer marker ("Answer: niece"), a statement about the two
people the question asks about ("Kim is Ann's niece", for "Who is Kim to Ann?"), a conclusion
("so Alice is the granddaughter of Bob") or a self-correction ("Wait, actually it is niece").
Each finder returns `(position, label)` statements; `last_stated_label` weighs them.
"""

import bisect
import functools
import re
from typing import NamedTuple

from rulebench.inferential.extraction import NO_ANSWER
from rulebench.inferential.tasks.kinship.extraction.asides import CONCLUSION_CUE, CORRECTION_CUE
from rulebench.inferential.tasks.kinship.extraction.chains import (
    RELATION_WORDS,
    UNLISTED,
    relation_word_pattern,
)

Statement = tuple[int, str]
"""Where a stated label starts in the reply, and the label (or `UNLISTED`)."""

_QUESTION = re.compile(r"who\s+is\s+\[?([^\s\[\]?]+)\]?\s+to\s+\[?([^\s\[\]?]+)\]?\s*\?", re.I)
_ANSWER_MARKER = re.compile(r"\banswer\s*(?:is\b|would be\b|:|=)")
_CLAUSE_END = re.compile(r"[.!?\n]")
_NAME = r"\[?[a-z]+\]?"
# "'s" is a copula only after a pronoun: "Kim's father" is a possessive, "she's" is "she is".
_COPULA = (
    r"(?:\s+(?:is|was|would\s+be|must\s+be|should\s+be|will\s+be|has\s+to\s+be|becomes)"
    r"|(?:(?<=he)|(?<=it)|(?<=that))'s)"
    r"(?:\s+(?:therefore|thus|then|actually|indeed|clearly|really|also|hence|so|definitely"
    r"|in\s+fact))?\s+"
)
_NOT_ADJECTIVE = r"(?!(?:not|never|no|great|step|half|ex|former|future)\b)"
_RELATION_WORDS = frozenset(RELATION_WORDS)
_PRONOUNS = frozenset({"he", "she", "it", "they", "that", "this", "his", "her", "him", "them"})
_CONCLUSION = re.compile(rf"{CONCLUSION_CUE}[\s,:]*")
_CUE_PUNCTUATION = re.compile(r"[\s,:;.!—–-]*")
_SUBJECT = re.compile(rf"(?<![a-z'\[]){_NAME}(?={_COPULA})")


class KinshipQuery(NamedTuple):
    """What robust steps know about one sample."""

    vocabulary: tuple[str, ...]
    """The labels that count as answers (the released ones plus the sample's candidates)."""
    tail: str | None
    """The person asked about ("Kim" in "Who is Kim to Ann?"), lowercase; None if not found."""
    head: str | None
    """The person the answer relates the tail to ("Ann"), lowercase; None if not found."""


def read_query(question: str, vocabulary: tuple[str, ...]) -> KinshipQuery:
    """The query names from the question's last "Who is <tail> to <head>?"."""
    found = _QUESTION.findall(question)
    tail, head = (found[-1][0].lower(), found[-1][1].lower()) if found else (None, None)
    return KinshipQuery(vocabulary, tail, head)


@functools.lru_cache(maxsize=64)
def _patterns(vocabulary: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    label = relation_word_pattern((*vocabulary, UNLISTED))
    # "the niece", "Ann's niece", "her elder niece", "the niece of Ann" ("kin term 's" or
    # "kin term is" after the label makes it a subject, not a predicate).
    predicate = (
        r"(?:(?:the|a|an)\s+)?(?:(?P<owner>\[?[a-z]+\]?)'s\s+|(?P<pronoun>his|her|their)\s+)?"
        rf"(?:{_NOT_ADJECTIVE}[a-z]+\s+)??(?P<label>{label})"
        r"(?!'s|\s+(?:is|was|has|had)\b)(?:\s+(?:of|to)\s+(?P<object>\[?[a-z]+\]?))?"
    )
    statement = rf"(?:(?P<subject>{_NAME}){_COPULA})?{predicate}"
    return re.compile(label), re.compile(statement)


def _name(text: str | None) -> str | None:
    return text.strip("[]") if text else None


def _is_about_query(found: re.Match[str], query: KinshipQuery, loose: bool) -> bool:
    """Whether a statement relates the query's tail to its head (anyone, names unknown).

    A statement must name the tail as its subject and no one but the head (so "Kim is Bob's
    daughter" and "Kim is her daughter" do not answer "Who is Kim to Ann?"). `loose`, for
    self-corrections, also takes a pronoun or no subject, as in "no, she is his niece".
    """
    subject, owner, other = (_name(found.group(key)) for key in ("subject", "owner", "object"))
    if subject in _RELATION_WORDS or owner in _RELATION_WORDS:
        return False
    if query.tail is None or query.head is None:
        return True
    if loose:
        others = {None, query.head, *_PRONOUNS}
        return subject in {None, query.tail, *_PRONOUNS} and {owner, other} <= others
    has_pronoun_owner = found.group("pronoun") is not None
    return subject == query.tail and {owner, other} <= {None, query.head} and not has_pronoun_owner


def label_after_answer_marker(text: str, query: KinshipQuery) -> list[Statement]:
    """Fix: paper mode takes the last label anywhere ("the answer is aunt: ...mother" -> mother).

    In each clause, the first label after the last "answer is" / "answer:" that has a label
    after it is a stated answer.
    """
    pattern, _ = _patterns(query.vocabulary)
    statements: list[Statement] = []
    offset = 0
    for clause in _CLAUSE_END.split(text):
        ends = [marker.end() for marker in _ANSWER_MARKER.finditer(clause)]
        labels = list(pattern.finditer(clause, ends[0])) if ends else []
        if labels:
            # The last marker with a label after it; linear even in a degenerate loop that
            # repeats "the answer is" thousands of times.
            start = ends[bisect.bisect_right(ends, labels[-1].start()) - 1]
            found = pattern.search(clause, start)
            if found:
                statements.append((offset + found.start(), found.group()))
        offset += len(clause) + 1
    return statements


def label_in_stated_conclusion(text: str, query: KinshipQuery) -> list[Statement]:
    """Fix: paper mode lets a kin term in the explanation after the answer override it.

    A stated answer is a statement about the query's two people ("Kim is Ann's niece", "Kim is
    the niece of Ann", for "Who is Kim to Ann?"), or one after "so", "therefore", "which means",
    ... that may call them by pronouns ("so she is his niece"); when the question names no one,
    any statement after such a cue ("so Alice is the granddaughter of Bob").
    """
    _, statement = _patterns(query.vocabulary)
    starts = [(cue.end(), True) for cue in _CONCLUSION.finditer(text)]
    if query.tail is not None:
        tail = re.compile(rf"(?<![a-z\[])\[?{re.escape(query.tail)}(?![a-z])")
        starts.extend((found.start(), False) for found in tail.finditer(text))
    statements: list[Statement] = []
    for start, loose in starts:
        found = statement.match(text, start)
        if found and found.group("subject") and _is_about_query(found, query, loose):
            statements.append((found.start("label"), found.group("label")))
    return statements


def label_in_self_correction(text: str, query: KinshipQuery) -> list[Statement]:
    """Fix: paper mode ignores "wait", "actually", "I mean", "no," before a corrected answer.

    The first label stated in the rest of the sentence after such a cue ("Wait, actually it is
    niece", "No, niece", "No, wait: Kim is female, so she is Ann's niece") is a correction;
    `last_stated_label` lets it replace an answer stated before it.
    """
    _, statement = _patterns(query.vocabulary)
    statements: list[Statement] = []
    scope_end = 0
    for cue in CORRECTION_CUE.finditer(text):
        if cue.start() < scope_end:
            continue  # a later cue in the same sentence: its scope was searched already
        start = _CUE_PUNCTUATION.match(text, cue.end())
        begin = start.end() if start else cue.end()
        end = _CLAUSE_END.search(text, begin)
        scope_end = end.start() if end else len(text)
        # A bare label right after the cue ("no, niece"), else a statement with a subject.
        starts = (begin, *(found.start() for found in _SUBJECT.finditer(text, begin, scope_end)))
        for position in starts:
            found = statement.match(text, position, scope_end)
            if found is None or not (position == begin or found.group("subject")):
                continue
            if _is_about_query(found, query, loose=True):
                statements.append((found.start("label"), found.group("label")))
                break
    return statements


def last_stated_label(text: str, query: KinshipQuery) -> str | None:
    """The stated answer: the last answer marker or correction, else the last conclusion.

    A correction counts only after an answer was stated (a marker or a conclusion), so an
    "actually" in the reasoning before the answer corrects nothing. An answer marker followed
    by a chain that is no label ("Answer: Michael's aunt's husband") is `NO_ANSWER`: the reply
    answered, with no label.
    """
    markers = label_after_answer_marker(text, query)
    conclusions = label_in_stated_conclusion(text, query)
    first_stated = min((position for position, _ in (*markers, *conclusions)), default=None)
    corrections = [
        (position, label)
        for position, label in label_in_self_correction(text, query)
        if first_stated is not None and position > first_stated
    ]
    stated = [*markers, *corrections] or conclusions
    if not stated:
        return None
    label = max(stated)[1]
    return NO_ANSWER if label == UNLISTED else label
