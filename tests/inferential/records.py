"""Analysis records for tests: one factory, so each test states only what it is about."""

from rulebench.inferential.analysis import Record


def make_record(correct: bool | None, **fields: object) -> Record:
    """A kinship few-rule record (golden rule first of three); `fields` override any field."""
    base: dict[str, object] = {
        "task": "kinship",
        "quantity": "few",
        "form": "nl",
        "cot": False,
        "counterfactual": False,
        "cited": None,
        "golden_index": 1,
        "listed": 3,
    }
    return Record(correct=correct, **(base | fields))  # type: ignore[arg-type]
