"""The kinship prompt: name the relation between two people in a story (CLUTRR uses it too)."""

from rulebench.inferential.template import PromptTemplate

TEMPLATE = PromptTemplate(
    task_line=(
        "Read the story about a family and work out how two of its members are related, "
        "using the rules below."
    ),
    answer_line='End with "Answer: <relation>", for example "Answer: aunt".',
    write_answer=lambda gold: f"Answer: {gold}",
)
