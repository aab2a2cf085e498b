"""Our generated kinship task: the same question shape as CLUTRR."""

from rulebench.inferential.templates.clutrr import TEMPLATE

__all__ = ["TEMPLATE"]
