"""ULogic: does a conclusion follow from a context, given the rules?"""

from rulebench.inferential.templates.base import PromptTemplate
from rulebench.inferential.vocabulary import ULOGIC_ANSWERS as ANSWERS

TEMPLATE = PromptTemplate(
    task_line="Read the context and answer the question, using the rules below.",
    answer_line=('Reply in the format "Answer: x." where x is one of ' + ", ".join(ANSWERS) + "."),
    write_answer=lambda gold: f"Answer: {gold.capitalize()}.",
)
