"""Reading "Applied rule: N" for the triggering/execution analysis."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.inferential.citation import cited_rule


@pytest.mark.parametrize(
    ("reply", "number"),
    [
        ("Applied rule: 3\nAnswer: aunt", 3),
        ("Applied rule: 3.", 3),
        ("Applied rule: #3", 3),
        ("**Applied Rule:** 12", 12),
        ("applied rule: rule 4", 4),
        ("APPLIED RULE (2)", 2),
        ("Applied rule: 1 ... on reflection\nApplied rule: 5\nAnswer: B.", 5),
        ("Applied rule: 0", None),
        ("No rule applies here.", None),
        ("Applied rule: 12345678", None),
        ("", None),
    ],
)
def test_cited_rule(reply: str, number: int | None) -> None:
    assert cited_rule(reply) == number


@given(st.text())
def test_cited_rule_never_raises(reply: str) -> None:
    number = cited_rule(reply)
    assert number is None or number >= 1


@given(st.integers(1, 999_999), st.text(alphabet=st.characters(codec="ascii")))
def test_a_citation_line_after_any_text_is_read(number: int, before: str) -> None:
    assert cited_rule(f"{before}\nApplied rule: {number}\nAnswer: x.") == number
