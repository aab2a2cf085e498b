"""TheoremQA choice lines: every option layout of the release reads in full, or is an error.

fixtures/theoremqa_layouts/ holds records of ours in the release's format, one per layout the
release uses (". b ", "; b ", ", b ", two options, trailing text, option text with dots).
"""

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.errors import DataError
from rulebench.inferential.official import load_official
from rulebench.inferential.tasks.theoremqa import LETTERS, choice_letters

LAYOUTS = Path(__file__).parent / "fixtures" / "theoremqa_layouts"


def test_every_release_layout_loads_with_all_its_options() -> None:
    data = load_official(LAYOUTS, "theoremQA")
    assert [(s.candidates, s.gold) for s in data.samples] == [
        (("a", "b", "c", "d"), "d"),  # a 0.0. b 5.0 ...
        (("a", "b", "c"), "c"),  # true/false: three options
        (("a", "b", "c", "d"), "b"),  # a X; b Y; ... Which option is correct?
        (("a", "b", "c"), "a"),  # three options with "; "
        (("a", "b", "c", "d"), "a"),  # a [0,1], b {0, 1}, ...: commas inside options
        (("a", "b"), "b"),  # two options with ", " and trailing text
        (("a", "b"), "a"),  # two options with ". " and a final period
        (("a", "b", "c", "d"), "b"),  # a Normal. b Uniform. ... d Gamma.
        (("a", "b", "c", "d"), "b"),  # "$x. b$" inside an option is not a separator
    ]
    assert data.samples[2].question.endswith("d None of the above. Which option is correct?")


@pytest.mark.parametrize(
    ("line", "letters"),
    [
        ("a 1.0. b 2.0. c 3.0. d 4.0", ("a", "b", "c", "d")),
        ("a True; b False; c Unknown", ("a", "b", "c")),
        ("a [0,1], b [0,1/2], c [1/2, 1], d none of the above.", ("a", "b", "c", "d")),
        ("a $(1, 0.5,0.5)$, b $(0.5, 0.2,0.9)$, which is brighter?", ("a", "b")),
        ("a 1\nb 2\nc 3", ("a", "b", "c")),
        ("a. One b. Two c. Three d. Four", ("a", "b", "c", "d")),
        ("a) One b) Two c) Three", ("a", "b", "c")),
        ("(a) One (b) Two (c) Three (d) Four", ("a", "b", "c", "d")),
        ("a: One; b: Two", ("a", "b")),
        ("a One. c Two. d Three", ("a",)),  # letters must come in order: no b, nothing more
        ("a One b Two", ("a",)),  # bare letters need a separator before them
    ],
)
def test_choice_letters_reads_each_separator_in_order(line: str, letters: tuple[str, ...]) -> None:
    assert choice_letters(f"Which one?\nChoices:\n{line}") == letters


@given(st.text(alphabet="abcd().;,:\n xyz", max_size=60))
def test_choice_letters_never_raises_and_gives_letters_in_order(line: str) -> None:
    letters = choice_letters(f"Q?\nChoices:\n{line}")
    assert letters is None or letters == LETTERS[: len(letters)]


def test_a_choice_line_that_cannot_be_split_names_file_record_and_field(tmp_path: Path) -> None:
    shutil.copytree(LAYOUTS / "theoremQA", tmp_path / "theoremQA")
    path = tmp_path / "theoremQA" / "test_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[3]["input"] = "Which one?\nChoices:\na f(1)-f(0) b f(0)-f(1) c None of the above"
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_official(tmp_path, "theoremQA")
    message = str(info.value)
    assert message.startswith(
        "theoremQA/test_data.json: record 3: field 'input': cannot split the choice line"
    )
    assert "no option 'b' follows option 'a'" in message and "'a f(1)-f(0) b" in message


def test_a_gold_letter_beyond_the_options_read_is_an_error_not_a_shorter_answer_set(
    tmp_path: Path,
) -> None:
    shutil.copytree(LAYOUTS / "theoremQA", tmp_path / "theoremQA")
    path = tmp_path / "theoremQA" / "test_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[6]["output"] = "c"  # the record offers a and b only
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(
        DataError,
        match=r"record 6: field 'output': 'c' is not one of the choices \('a', 'b'\)",
    ):
        load_official(tmp_path, "theoremQA")
