"""Reading a kinship label (clutrr, clutrr-cf and the generated kinship task) out of a reply."""

import bisect
import functools
import re
from collections.abc import Sequence

from rulebench.core.rules import Sample
from rulebench.inferential.extraction.base import Judgement, Step, bind, run_steps
from rulebench.inferential.tasks.clutrr import CF_LABELS

LABELS: tuple[str, ...] = CF_LABELS
"""Every kinship label, counterfactual ones included (the paper scorer's candidate list)."""
"""The released scorer's candidates: CLUTRR's 18 answer labels plus clutrr-cf's two step labels."""

_MARKUP = re.compile(r"[*_`#~\"“”„‘’«»']")
_IN_LAW = re.compile(r"\b(son|daughter|father|mother|brother|sister)[\s\-‐–]+in[\s\-‐–]+law\b")
_STEP = re.compile(r"\bstep[\s\-‐–]+(son|daughter|father|mother|brother|sister)\b")
_GRAND = re.compile(r"\bgrand[\s\-‐–]+(father|mother|son|daughter)\b")
_ANSWER_MARKER = re.compile(r"\banswer\s*(?:is\b|would be\b|:|=)")
_CLAUSE_END = re.compile(r"[.!?\n]")


def paper_answer(reply: str) -> str | None:
    """The released scorer's reading: the last candidate token, else the last token.

    Quirks kept: tokens come from splitting on single spaces only (a label followed by a newline
    and more text is never a token of its own), only `.` and `,` are stripped (so `**aunt**`,
    `aunt!` and `"aunt"` are not labels), and multi-word labels (`son in law`) read as their
    last candidate word.
    """
    tokens = [token.strip(".").strip(",").strip() for token in reply.lower().split(" ")]
    for token in reversed(tokens):
        if token in LABELS:
            return token
    return tokens[-1] or None


def drop_markup_around_labels(text: str) -> str:
    """Fix: markdown emphasis, code ticks, headings and quotes around a label hide it in paper mode.

    They become spaces, so `**aunt**`, `"niece"` and `` `son` `` read as their labels.
    """
    return _MARKUP.sub(" ", text)


def join_multi_word_labels(text: str) -> str:
    """Fix: paper mode reads `son in law` as `son` (its last candidate word).

    Spaced and hyphenated spellings (`son in law`, `son - in - law`, `step son`, `grand-daughter`)
    become the label's one-token spelling (`son-in-law`, `stepson`, `granddaughter`).
    """
    text = _IN_LAW.sub(r"\1-in-law", text.lower())
    text = _STEP.sub(r"step\1", text)
    return _GRAND.sub(r"grand\1", text)


@functools.lru_cache(maxsize=64)
def _label_pattern(vocabulary: tuple[str, ...]) -> re.Pattern[str]:
    # Longest first, so `son-in-law` wins over the `son` it starts with; a label glued to letters
    # or hyphens (`sister-in-law`, `grandsons`) is not that label.
    alternatives = "|".join(re.escape(label) for label in sorted(vocabulary, key=len, reverse=True))
    return re.compile(rf"(?<![a-z\-])(?:{alternatives})(?![a-z\-])")


def label_after_answer_marker(text: str, vocabulary: tuple[str, ...]) -> str | None:
    """Fix: paper mode takes the last label anywhere ("the answer is aunt: ...mother" -> mother).

    The first label in the clause after the last "answer is" / "answer:" that holds one decides.
    """
    pattern = _label_pattern(vocabulary)
    for clause in reversed(_CLAUSE_END.split(text)):
        ends = [marker.end() for marker in _ANSWER_MARKER.finditer(clause)]
        labels = list(pattern.finditer(clause, ends[0] if ends else len(clause)))
        if labels:
            # The last marker with a label after it; linear even in a degenerate loop that
            # repeats "the answer is" thousands of times.
            start = ends[bisect.bisect_right(ends, labels[-1].start()) - 1]
            found = pattern.search(clause, start)
            return found.group() if found else None
    return None


def last_label_as_whole_word(text: str, vocabulary: tuple[str, ...]) -> str | None:
    """Fix: paper tokens split on single spaces and strip only `.` and `,`.

    Here a label is found as a whole word wherever it is, so newlines, `!`, `?`, `:` or brackets
    around it do not hide it; the last one wins as in paper mode, and a reply with no label has
    no answer (paper mode falls back to its last token, which can never be right).
    """
    found = _label_pattern(vocabulary).findall(text)
    return found[-1] if found else None


ROBUST_REWRITES = (drop_markup_around_labels, join_multi_word_labels)
ROBUST_STEPS = (label_after_answer_marker, last_label_as_whole_word)
ROBUST_FIXES: tuple[str, ...] = tuple(fix.__name__ for fix in (*ROBUST_REWRITES, *ROBUST_STEPS))


def normalize_label(text: str) -> str:
    """A label or reply in robust spelling: lowercase, no markup, multi-word labels joined."""
    for rewrite in ROBUST_REWRITES:
        text = rewrite(text)
    return text


def robust_steps(candidates: Sequence[str]) -> tuple[Step, ...]:
    """Robust steps over the released labels plus this sample's own candidates (if any)."""
    extra = (normalize_label(candidate).strip() for candidate in candidates)
    vocabulary = tuple(sorted({*LABELS, *(label for label in extra if label)}))
    return tuple(bind(step, vocabulary) for step in ROBUST_STEPS)


def judge_paper(reply: str, sample: Sample) -> Judgement:
    """Paper mode: correct when the released reading equals the stripped gold exactly."""
    answer = paper_answer(reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip())


def judge_robust(reply: str, sample: Sample) -> Judgement:
    """Robust mode: every fix above, compared with the gold in the same spelling."""
    answer = run_steps(robust_steps(sample.candidates), normalize_label(reply))
    gold = normalize_label(sample.gold).strip()
    return Judgement(answer=answer, correct=answer is not None and answer == gold)
