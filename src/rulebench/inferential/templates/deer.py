"""DEER: a four-option question about the natural or social world."""

from rulebench.inferential.templates.base import PromptTemplate

TEMPLATE = PromptTemplate(
    task_line="Answer the multiple-choice question using the rules below.",
    answer_line='End with "The answer is X." where X is A, B, C or D.',
    write_answer=lambda gold: f"The answer is {gold.upper()}.",
)
