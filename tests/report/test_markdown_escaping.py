"""Names from data files and model specs never break or inject into a Markdown report."""

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from rulebench.inferential.analysis import Record
from rulebench.report.inferential import write_report
from rulebench.report.markdown import escape_markdown, table
from rulebench.report.scenarios import render
from rulebench.scenarios.scoring import CaseRecord

HOSTILE = "evil | x <script>alert(1)</script>\nnext & [click](http://evil.test) `code` \x1b[2J"


def to_html(markdown: str) -> str:
    """GitHub-flavoured tables as rich renders them (rich's Markdown is markdown-it)."""
    html: str = MarkdownIt("commonmark").enable("table").render(markdown)
    return html


def body_cells(html: str) -> list[list[str]]:
    body = html.split("<tbody>", 1)[1]
    rows = re.findall(r"<tr>(.*?)</tr>", body, flags=re.DOTALL)
    return [re.findall(r"<td>(.*?)</td>", row, flags=re.DOTALL) for row in rows]


def test_hostile_cell_is_one_row_of_literal_text() -> None:
    markdown = table(["model", "accuracy % [95% CI]"], [[HOSTILE, "62.5 [40.9-80.0]"]])
    assert len(markdown.splitlines()) == 3  # header, delimiter, one row: no newline got through
    html = to_html(markdown)
    [[name, number]] = body_cells(html)
    assert "<script>" not in html and "<a " not in html and "<code>" not in html
    assert name == (
        "evil | x &lt;script&gt;alert(1)&lt;/script&gt; next &amp; [click](http://evil.test) "
        "`code` \\x1b[2J"
    )
    assert number == "62.5 [40.9-80.0]"


def test_numbers_and_intervals_are_written_as_they_are() -> None:
    row = ["62.5 [40.9-80.0]", "+1.5 [-2.0, +3.0]", "-", "0.0123"]
    assert table(["a", "b", "c", "d"], [row]).splitlines()[2] == "| " + " | ".join(row) + " |"


@pytest.mark.parametrize(
    "text",
    ["a\\|b", "trailing\\", "\\", "a]\\(b", "&amp;", "| |", "line\r\nbreak\ttab"],
)
def test_escaped_text_renders_back_to_itself(text: str) -> None:
    [[cell]] = body_cells(to_html(table(["h"], [[text]])))
    expected = text.replace("\r\n", " ").replace("\t", " ")
    assert cell == expected.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_controls_become_visible_escapes() -> None:
    assert escape_markdown("a\x1b]0;title\x07b\x9b") == "a\\\\x1b]0;title\\\\x07b\\\\x9b"
    [[cell]] = body_cells(to_html(table(["h"], [["a\x1b]0;title\x07b"]])))
    assert cell == "a\\x1b]0;title\\x07b"


def test_header_cells_are_escaped_too() -> None:
    html = to_html(table(["model", "<b>|bold</b>"], [["m", "1"]]))
    assert "<b>" not in html and "&lt;b&gt;|bold&lt;/b&gt;" in html


def case(suite: str, scenario: str, passed: bool, repeat: int = 0) -> CaseRecord:
    return CaseRecord(
        case_id=f"{suite}-{scenario}-{passed}",
        suite=suite,
        bucket="harmless",
        scenario=scenario,
        behavior=scenario,
        strategy="Just Ask",
        repeat=repeat,
        passed=passed,
    )


def test_scenarios_report_escapes_labels_and_data_fields() -> None:
    records = [case("[/x]|<i>", "Encryption|<script>", p) for p in (True, False, True)]
    markdown = render([("scripted/[/x] | <b>", "user, reminders, compat", records)])
    html = to_html(markdown)
    assert "<script>" not in html and "<i>" not in html and "<b>" not in html
    for block in markdown.split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].startswith("| "):
            widths = {len(re.findall(r"(?<!\\)\|", line)) for line in lines}
            assert len(widths) == 1, block  # every row has as many cells as the header


def inferential_records() -> list[Record]:
    return [
        Record(
            task="kinship|<script>",
            quantity=quantity,
            form="nl",
            cot=False,
            counterfactual=False,
            correct=i % 2 == 0,
            cited=1,
            golden_index=1,
            listed=3,
        )
        for i in range(6)
        for quantity in ("none", "golden", "few", "all")
    ]


def test_inferential_report_escapes_labels_and_survives_mathtext(tmp_path: Path) -> None:
    # "$\frac{$" is broken mathtext: as a plot label it used to raise when the figure was saved.
    label = "model $\\frac{$ | <script>x</script>"
    text = write_report([(label, inferential_records())], tmp_path, "robust").read_text()
    assert "<script>" not in text
    assert "model $\\\\frac{$ \\| &lt;script&gt;x&lt;/script&gt;" in text
    assert "kinship\\|&lt;script&gt;" in text
    assert (tmp_path / "dimensions.png").stat().st_size > 1000
