"""Reading a kinship label (clutrr, clutrr-cf and the generated kinship task) out of a reply."""

import functools
import re

from rulebench.core.rules import Sample
from rulebench.inferential.definition import sample_judges
from rulebench.inferential.extraction import NO_ANSWER, Judgement, Step, bind, run_steps
from rulebench.inferential.tasks.kinship.extraction.asides import drop_explanations_after_labels
from rulebench.inferential.tasks.kinship.extraction.chains import (
    UNLISTED,
    compose_relation_chains,
    relation_word_pattern,
)
from rulebench.inferential.tasks.kinship.extraction.statements import (
    KinshipQuery,
    label_after_answer_marker,
    label_in_self_correction,
    label_in_stated_conclusion,
    last_stated_label,
    read_query,
)
from rulebench.inferential.vocabulary import KINSHIP_CF_LABELS

LABELS: tuple[str, ...] = KINSHIP_CF_LABELS
"""The released scorer's candidates: CLUTRR's 18 answer labels plus clutrr-cf's two step labels."""

# A possessive apostrophe ("aunt's", "[Ann]'s") is kept, as "'s": relation chains need it.
_MARKUP = re.compile(r"(?P<possessive>(?<=[A-Za-z\]])['’](?=s\b))|[*_`#~\"“”„‘’«»']")
_IN_LAW = re.compile(r"\b(son|daughter|father|mother|brother|sister)[\s\-‐–]+in[\s\-‐–]+law\b")
_STEP = re.compile(r"\bstep[\s\-‐–]+(son|daughter|father|mother|brother|sister)\b")
_GRAND = re.compile(r"\bgrand[\s\-‐–]+(father|mother|son|daughter)\b")


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

    They become spaces, so `**aunt**`, `"niece"` and `` `son` `` read as their labels; a
    possessive apostrophe stays (as `'s`), since `aunt's husband` is no aunt.
    """
    return _MARKUP.sub(lambda found: "'" if found.group("possessive") else " ", text)


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
    return re.compile(relation_word_pattern(vocabulary))


def last_label_as_whole_word(text: str, query: KinshipQuery) -> str | None:
    """Fix: paper tokens split on single spaces and strip only `.` and `,`.

    Here a label is found as a whole word wherever it is, so newlines, `!`, `?`, `:` or brackets
    around it do not hide it; the last one wins as in paper mode, and a reply with no label has
    no answer (paper mode falls back to its last token, which can never be right). A relation
    chain that reduces to no label counts as the last mention, with no answer.
    """
    found = _label_pattern((*query.vocabulary, UNLISTED)).findall(text)
    if not found:
        return None
    return NO_ANSWER if found[-1] == UNLISTED else found[-1]


ROBUST_REWRITES = (
    drop_markup_around_labels,
    join_multi_word_labels,
    compose_relation_chains,
    drop_explanations_after_labels,
)
ROBUST_STEPS = (last_stated_label, last_label_as_whole_word)
"""The stated answer (see `statements`), else the last label anywhere."""
ROBUST_FIXES: tuple[str, ...] = tuple(
    fix.__name__
    for fix in (
        *ROBUST_REWRITES,
        label_after_answer_marker,
        label_in_stated_conclusion,
        label_in_self_correction,
        last_label_as_whole_word,
    )
)


def normalize_label(text: str) -> str:
    """A label or reply in robust spelling: every rewrite in `ROBUST_REWRITES`, in order.

    Lowercase, no markup, multi-word labels joined, relation chains reduced to their label, and
    explanations after a label dropped.
    """
    for rewrite in ROBUST_REWRITES:
        text = rewrite(text)
    return text


def robust_steps(sample: Sample) -> tuple[Step, ...]:
    """Robust steps over the released labels plus the sample's own candidates, and its query."""
    extra = (normalize_label(candidate).strip() for candidate in sample.candidates)
    vocabulary = tuple(sorted({*LABELS, *(label for label in extra if label)}))
    query = read_query(sample.question, vocabulary)
    return tuple(bind(step, query) for step in ROBUST_STEPS)


def judge_paper(reply: str, sample: Sample) -> Judgement:
    """Paper mode: correct when the released reading equals the stripped gold exactly."""
    answer = paper_answer(reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip())


def judge_robust(reply: str, sample: Sample) -> Judgement:
    """Robust mode: every fix above, compared with the gold in the same spelling."""
    answer = run_steps(robust_steps(sample), normalize_label(reply))
    gold = normalize_label(sample.gold).strip()
    return Judgement(answer=answer, correct=answer is not None and answer == gold)


JUDGES = sample_judges(judge_paper, judge_robust, ROBUST_FIXES)
"""How the task's replies are judged, for its TaskDefinition."""
