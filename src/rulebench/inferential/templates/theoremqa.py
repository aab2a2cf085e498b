"""TheoremQA: a mathematics or science question turned into lettered choices."""

from rulebench.inferential.templates.base import PromptTemplate

TEMPLATE = PromptTemplate(
    task_line="Answer the question using the theorems stated as rules below.",
    answer_line='Reply in the format "Answer: x." where x is the letter of the option you choose.',
    write_answer=lambda gold: f"Answer: {gold}.",
)
