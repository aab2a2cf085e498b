r"""ULogic questions from the official release: the `ulogic` and `ulogic-cf` folders.

A record's input is "Context:\n...\nQuestion:\n..."; the gold for scoring is `positive_`
(true/false), not `output` (a sentence in ulogic, "True"/"False" in ulogic-cf) and not
`positive`, which differs from `positive_` on some records. ulogic-cf's rule files have NL only
and repeat every key in their text (read with a warning); some of its counterfactual rules equal
the factual ones while the gold is flipped: that is the released data, kept as it is. This
module holds the whole task: loader, prompt template and the reading of a truth value ("true",
"false" or an abstention) out of a reply.
"""

import functools
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rulebench.core.rules import Sample, TaskData
from rulebench.inferential.definition import TaskDefinition, sample_judges
from rulebench.inferential.extraction import Judgement, Step, bind, run_steps
from rulebench.inferential.official import (
    OfficialFormat,
    SampleParts,
    check_family,
    instruction_metadata,
    load_task,
)
from rulebench.inferential.official_files import StrRuleRecord
from rulebench.inferential.template import PromptTemplate
from rulebench.inferential.vocabulary import ULOGIC_ANSWERS

DATASETS = ("ulogic", "ulogic-cf")

ANSWERS = ULOGIC_ANSWERS


class UlogicRecord(StrRuleRecord):
    """A ulogic record: the core fields plus `positive_`, the gold (others kept as extras)."""

    positive_: bool


def load(root: Path, dataset: str = "ulogic", split: str = "test") -> TaskData:
    """Load ulogic or ulogic-cf (splits: test, train; one rule set) from `root/<dataset>/`."""
    check_family(dataset, DATASETS)
    fmt = OfficialFormat(UlogicRecord, to_parts, shared_rules=True)
    return load_task(root, dataset, split, fmt)


def to_parts(record: UlogicRecord) -> SampleParts:
    """Context and question as released; gold "true"/"false" from `positive_`."""
    return SampleParts(
        question=record.input,
        gold="true" if record.positive_ else "false",
        candidates=ANSWERS,
        metadata={"output": record.output, **instruction_metadata(record)},
    )


TEMPLATE = PromptTemplate(
    task_line="Read the context and answer the question, using the rules below.",
    answer_line=('Reply in the format "Answer: x." where x is one of ' + ", ".join(ANSWERS) + "."),
    write_answer=lambda gold: f"Answer: {gold.capitalize()}.",
)

_PAPER_MARKER = "Answer: "
_MARKUP = r"[\s*_`\"'“”(\[]*"


def paper_answer(reply: str) -> str | None:
    r"""The released reading: the first match of `Answer: (.*?)\.` on one line, lowercased.

    Quirks kept: case-sensitive `Answer: ` with one space (`**Answer:** True.` is missed), the
    period is required (`Answer: True` is missed), and everything up to it is the value
    (`Answer: True, since X.` reads as `true, since x`). Computed line by line, which gives the
    regular expression's result (its `.` stops only at `\n`) in linear time; the expression
    itself is quadratic on a degenerate reply repeating `Answer: ` without a period.
    """
    for line in reply.split("\n"):
        start = line.find(_PAPER_MARKER)
        if start < 0:
            continue
        start += len(_PAPER_MARKER)
        end = line.find(".", start)
        if end >= 0:
            return line[start:end].lower()
    return None


@functools.lru_cache(maxsize=16)
def _patterns(vocabulary: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    words = "|".join(re.escape(word) for word in sorted(vocabulary, key=len, reverse=True))
    value = rf"(?P<value>{words})(?![A-Za-z0-9])"
    marker = re.compile(rf"\banswer\b(?:\s*(?:is\b|:|：|=))?{_MARKUP}{value}", re.IGNORECASE)
    bare = re.compile(rf"{_MARKUP}{value}[\s*_`\"'“”.!?)\]]*", re.IGNORECASE)
    return marker, bare


def value_after_answer_marker(reply: str, vocabulary: tuple[str, ...]) -> str | None:
    """Fix: paper mode needs exactly `Answer: x.`: the case, one space, the period, no notes.

    Reads `answer: true`, `**Answer:** False`, `Answer: True` with no period and `Answer: True,
    because ...`; the first marker followed by a value of the answer set counts, as the paper's
    first match does.
    """
    found = _patterns(vocabulary)[0].search(reply)
    return found.group("value").lower() if found else None


def bare_value_reply(reply: str, vocabulary: tuple[str, ...]) -> str | None:
    """Fix: a reply that is only the value (`True.`, `**false**`) has no `Answer:` to match."""
    found = _patterns(vocabulary)[1].fullmatch(reply)
    return found.group("value").lower() if found else None


ROBUST_STEPS = (value_after_answer_marker, bare_value_reply)
ROBUST_FIXES: tuple[str, ...] = tuple(step.__name__ for step in ROBUST_STEPS)


def robust_steps(candidates: Sequence[str]) -> tuple[Step, ...]:
    """Robust steps over the prompt's answer set plus this sample's own candidates (if any)."""
    vocabulary = tuple(sorted({*ANSWERS, *(c.strip() for c in candidates if c.strip())}))
    return tuple(bind(step, vocabulary) for step in ROBUST_STEPS)


def judge_paper(reply: str, sample: Sample) -> Judgement:
    """Paper mode: correct when the lowercased value equals the gold (`true` / `false`)."""
    answer = paper_answer(reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip().lower())


def judge_robust(reply: str, sample: Sample) -> Judgement:
    """Robust mode: the first marked value of the answer set, else a reply that is only a value."""
    answer = run_steps(robust_steps(sample.candidates), reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip().lower())


ULOGIC = TaskDefinition(
    name="ulogic",
    summary="ULogic: is a conclusion true given the facts and rules? (true/false)",
    template=TEMPLATE,
    judges=sample_judges(judge_paper, judge_robust, ROBUST_FIXES),
    load=load,
    answers=ANSWERS,
    paper_shots=1,
)
ULOGIC_CF = replace(ULOGIC, name="ulogic-cf", summary="ULogic with counterfactual rules")
