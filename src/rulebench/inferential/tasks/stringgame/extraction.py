"""Reading StringGame's numeric answer ("Based on the 2nd rule, the answer is 12.") from a reply.

StringGame is our own generated task, so paper mode here is simply the plain reading that the
target format suggests (the last integer), not a released scorer. In both modes an explicit answer
line that holds no number ("Answer: A") is a wrong answer: falling back to some earlier number in
the reply would score a reply for a number it never gave as its answer.
"""

import re

from rulebench.core.rules import Sample
from rulebench.inferential.definition import sample_judges
from rulebench.inferential.extraction import Judgement, run_steps

_INTEGER = re.compile(r"(?<![\w-])-?\d+|\d+")
_NUMBER = r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!,?\d)"
_NUMBER_PATTERN = re.compile(_NUMBER)
_PLAIN = re.compile(r"(?P<sign>-)?(?P<whole>\d+)(?:\.(?P<fraction>\d+))?")
_MARKER = re.compile(r"\banswer\s*(?:is\b|:|=)", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# What may stand between a marker and its answer without being one (markdown, quotes, `$`).
_DECORATION = re.compile(r"[\s*_`$\"'“”(\[\]):.]*")
_AFTER_MARKER = re.compile(
    r"\banswer\s*(?:is\b|:|=)[\s*_`$\"'“”(\[:]*(?P<number>" + _NUMBER + ")", re.IGNORECASE
)


def answer_line(reply: str) -> str | None:
    """The text after the reply's last answer marker ("Answer:", "the answer is"); None if none.

    The text runs to the end of the marker's line, or it is the next line holding more than
    markdown when the marker ends its own line ("Answer:" then "**12**" on the next line).
    """
    found = list(_MARKER.finditer(reply))
    if not found:
        return None
    lines = reply[found[-1].end() :].split("\n")
    for line in lines:
        if _DECORATION.fullmatch(line) is None:
            return line
    return lines[0]


def has_non_numeric_answer(reply: str) -> bool:
    """Whether the reply's last answer line holds no number ("Answer: A"): a wrong answer.

    Checked first in both modes: otherwise the last number anywhere in the reply (a rule
    number, a count in the working) would be read as the answer.
    """
    line = answer_line(reply)
    return line is not None and _DIGIT.search(line) is None


def paper_answer(reply: str) -> str | None:
    """The plain reading: the last integer in the reply, unless the answer line holds none.

    Quirks kept: a number written after the answer ("the answer is 12 (rule 2)") wins, and
    `1,234` reads as 234, `12.5` as 5.
    """
    if has_non_numeric_answer(reply):
        return None
    found = _INTEGER.findall(reply)
    return found[-1] if found else None


def normalize_number(text: str) -> str | None:
    """A number in one spelling (no thousands commas, leading zeros or trailing `.0`), else None.

    Plain string work rather than float or int: no rounding and no digit limit on long numbers.
    """
    found = _PLAIN.fullmatch(text.strip().replace(",", ""))
    if found is None:
        return None
    whole = found.group("whole").lstrip("0") or "0"
    fraction = (found.group("fraction") or "").rstrip("0")
    number = f"{whole}.{fraction}" if fraction else whole
    return number if number == "0" or not found.group("sign") else f"-{number}"


def number_after_answer_is(reply: str) -> str | None:
    """Fix: the last integer can come after the answer ("the answer is 12 (rule 2)" reads as 2).

    The number after the last "the answer is" / "answer:" wins, markdown and `$` around it allowed.
    """
    found = list(_AFTER_MARKER.finditer(reply))
    return normalize_number(found[-1].group("number")) if found else None


def last_number_with_commas(reply: str) -> str | None:
    """Fix: paper mode reads `1,234` as 234 and `12.5` as 5.

    Thousands separators and decimals belong to the number; the last number in the reply wins.
    """
    found = _NUMBER_PATTERN.findall(reply)
    return normalize_number(found[-1]) if found else None


ROBUST_STEPS = (number_after_answer_is, last_number_with_commas)
ROBUST_FIXES: tuple[str, ...] = tuple(step.__name__ for step in ROBUST_STEPS)


def judge_paper(reply: str, sample: Sample) -> Judgement:
    """Paper mode: correct when the last integer equals the stripped gold."""
    answer = paper_answer(reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip())


def judge_robust(reply: str, sample: Sample) -> Judgement:
    """Robust mode: the marked number, else the last number, compared as numbers.

    An answer line without a number is wrong, as in paper mode.
    """
    answer = None if has_non_numeric_answer(reply) else run_steps(ROBUST_STEPS, reply)
    gold = normalize_number(sample.gold) or sample.gold.strip()
    return Judgement(answer=answer, correct=answer == gold)


JUDGES = sample_judges(judge_paper, judge_robust, ROBUST_FIXES)
"""How the task's replies are judged, for its TaskDefinition."""
