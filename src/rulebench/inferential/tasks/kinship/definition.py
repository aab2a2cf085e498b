"""The generated kinship task as rulebench runs it: CLUTRR's question shape on our family trees.

Kept apart from the package's `__init__` so that the generator imports no templates or
extraction (the extractors import the generator's relation facts).
"""

from rulebench.inferential.definition import TaskDefinition
from rulebench.inferential.tasks.kinship import TASK, generate
from rulebench.inferential.tasks.kinship.extraction.labels import JUDGES
from rulebench.inferential.tasks.kinship.template import TEMPLATE
from rulebench.inferential.vocabulary import KINSHIP_CF_LABELS

KINSHIP = TaskDefinition(
    name=TASK,
    summary="Generated family stories (2-10 hops) with counterfactual twins; offline, any size",
    template=TEMPLATE,
    judges=JUDGES,
    generate=generate,
    answers=KINSHIP_CF_LABELS,
)
