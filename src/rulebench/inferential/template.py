"""What a task's prompt is made of; `rulebench.inferential.prompts` assembles the pieces."""

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from rulebench.core.rules import Sample


def plain_question(sample: Sample, rng: random.Random) -> str:
    """Most tasks show the question as the data has it."""
    return sample.question


@dataclass(frozen=True)
class PromptTemplate:
    """The task-specific wording of a RuleBench prompt."""

    task_line: str
    """What to do, first in the prompt (identical for all items, so it is part of the prefix)."""
    answer_line: str
    """How to give the answer: the format the task's paper-mode extractor parses."""
    write_answer: Callable[[str], str]
    """A gold answer written in that format, for demonstrations."""
    show_question: Callable[[Sample, random.Random], str] = plain_question
    rules_header: str = "Rules:"
    question_header: str = "Question:"
    example_header: str = "Example"
    rule_word: str = "Rule"
    cf_line: str = "Some rules may contradict common sense: follow the given rules exactly anyway."
    cot_line: str = (
        "First reason step by step: say which rule applies to the question and apply it, "
        "then give the answer."
    )
    cite_line: str = (
        'Before answering, write "Applied rule: N" on its own line, where N is the number of '
        "the rule you use."
    )
    reasoning: Callable[[str, str], str] = field(
        default=lambda rule, answer: (
            f"The rule that applies is: {rule} Applying it to this question gives {answer}."
        )
    )
    """A demonstration's chain of thought from its rule text and its answer."""
    write_cited_answer: Callable[[str, int], str] | None = None
    """A gold answer that also names the number of the rule applied (law-cf's JSON), for
    demonstrations that list rules; None when the answer format names no rule."""

    def demo_answer(self, gold: str, rule_number: int | None) -> str:
        """A demonstration's answer: naming the rule it applies where the format has one."""
        if rule_number is None or self.write_cited_answer is None:
            return self.write_answer(gold)
        return self.write_cited_answer(gold, rule_number)
