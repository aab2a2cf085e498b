"""StringGame: compute a number from an uppercase string with the one rule that applies."""

import random

from rulebench.core.rules import Sample
from rulebench.inferential.tasks.stringgame.rules.letters import CONVENTIONS
from rulebench.inferential.template import PromptTemplate


def show_string(sample: Sample, rng: random.Random) -> str:
    """The input string on its own line."""
    return f"Input: {sample.question}"


TEMPLATE = PromptTemplate(
    task_line=(
        "Exactly one of the rules below applies to the input string. Find it and compute its "
        f"output. Conventions: {CONVENTIONS}"
    ),
    answer_line='End with "Based on rule N, the answer is X." where X is a number.',
    write_answer=lambda gold: f"Based on the rule, the answer is {gold}.",
    show_question=show_string,
)
