"""Table 1 and Table 2 hold only the paper's cells: zero-shot NL/FOL, and factual/C.F. pairs.

The store-based test runs the paper's design with a scripted model on fixture data in the
release's layout and on a generated task, then reads the tables back from report.md.
"""

from pathlib import Path

import rulebench
from rulebench.engine.store.database import Store
from rulebench.inferential.task import InferentialConfig
from rulebench.report.build import inferential_report
from rulebench.report.paper_tables import table_1, table_2

from tests.inferential.records import make_record
from tests.report.html_page import markdown_table

FIXTURES = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"
TABLE_1 = "Rule form (Table 1 shape)"
TABLE_2 = "Factual vs counterfactual rules (Table 2 shape)"
CF = {"counterfactual": True}


def by_setting(markdown: str) -> dict[tuple[str, ...], str]:
    """(task, rules, form, answer, rules are) -> accuracy, from "Accuracy by setting"."""
    rows = markdown_table(markdown, "Accuracy by setting")[1:]
    return {tuple(row[1:6]): row[6] for row in rows}


def test_a_paper_design_run_gives_the_papers_two_tables(tmp_path: Path) -> None:
    config = InferentialConfig(
        tasks=("kinship", "law", "law-cf", "ulogic", "ulogic-cf"),
        per_group=4,
        data_root=str(FIXTURES),
        design="paper",
    )
    store = tmp_path / "s.sqlite"
    run_id = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    with Store(store, readonly=True) as db:
        markdown = inferential_report(db, [run_id], folder=tmp_path / "report").markdown
    cells = by_setting(markdown)
    # The run holds few-shot, CoT and counterfactual cells besides experiments 1-2...
    assert ("ulogic", "few", "NL", "direct, 1-shot", "factual") in cells
    assert ("law", "golden", "NL", "CoT, 2-shot", "factual") in cells

    # ...but Table 1 is the zero-shot, direct, factual table: one row per form, no -cf task.
    one = markdown_table(markdown, TABLE_1)
    tasks = [f"{t} {q}" for t in ("kinship", "law", "ulogic") for q in ("All", "Few")]
    assert one[0] == ["model", "form", *tasks]
    assert [row[:2] for row in one[1:]] == [["scripted/echo", "FOL"], ["scripted/echo", "NL"]]
    nl = dict(zip(one[0], one[2], strict=True))
    for task in ("kinship", "law", "ulogic"):
        for quantity in ("all", "few"):
            cell = cells[(task, quantity, "NL", "direct, 0-shot", "factual")]
            assert nl[f"{task} {quantity.capitalize()}"] == cell

    # Table 2 pairs each C.F. cell with its factual counterpart only; ulogic's one
    # demonstration and law's two share the row the paper's design gives them.
    two = markdown_table(markdown, TABLE_2)
    families = [f"{t} {q}" for t in ("kinship", "law", "ulogic") for q in ("Golden", "Few")]
    assert two[0] == ["model", "form", "answer", "rules are", *families]
    assert [row[:4] for row in two[1:]] == [
        ["scripted/echo", "NL", "CoT, paper shots", "factual"],
        ["scripted/echo", "NL", "CoT, paper shots", "C.F."],
    ]
    factual, counterfactual = (dict(zip(two[0], row, strict=True)) for row in two[1:])
    for quantity in ("golden", "few"):
        column = quantity.capitalize()
        pairs = [
            ("ulogic", "ulogic-cf", "1-shot"),
            ("law", "law-cf", "2-shot"),
            ("kinship", "kinship", "2-shot"),
        ]
        for task, cf_task, shots in pairs:
            answer = f"CoT, {shots}"
            assert factual[f"{task} {column}"] == cells[(task, quantity, "NL", answer, "factual")]
            cf = cells[(cf_task, quantity, "NL", answer, "C.F.")]
            assert counterfactual[f"{task} {column}"] == cf
    section = markdown.split(f"## {TABLE_2}", 1)[1].split("\n## ", 1)[0]
    assert "kinship 2, law 2, ulogic 1" in section
    assert "without a factual counterpart" not in section  # experiment 4 pairs with 3 throughout


def test_table_2_leaves_out_unmatched_shots_and_factual_rows_without_a_pair() -> None:
    factual = [
        make_record(True, task="ulogic", quantity="golden", cot=True, shots=1),
        make_record(False, task="ulogic", quantity="golden", shots=1),  # no C.F. twin
        make_record(True, task="ulogic", quantity="few"),  # zero-shot, no C.F. twin
    ]
    counterfactual = [
        make_record(False, task="ulogic-cf", quantity="golden", cot=True, shots=1, **CF),
        make_record(True, task="ulogic-cf", quantity="few", cot=True, shots=2, **CF),
    ]
    text = table_2([("m", [*factual, *counterfactual])])
    lines = text.split("\n\n")[0].splitlines()
    assert lines[0] == "| model | form | answer | rules are | ulogic Golden | ulogic Few |"
    assert lines[2:] == [
        "| m | NL | CoT, paper shots | factual | 100.0 [20.7-100.0] | - |",
        "| m | NL | CoT, paper shots | C.F. | 0.0 [0.0-79.3] | - |",
    ]
    assert "without a factual counterpart" in text and "m: ulogic-cf few NL CoT, 2-shot" in text


def test_table_2_without_pairs_says_so_and_names_the_lone_cells() -> None:
    lone = [make_record(True, task="clutrr-cf", quantity="few", cot=True, shots=2, **CF)]
    text = table_2([("m", [make_record(True, task="clutrr", quantity="few"), *lone])])
    assert "No counterfactual cell has a factual counterpart" in text
    assert "clutrr-cf few NL CoT, 2-shot" in text and "|" not in text


def test_table_1_keeps_only_zero_shot_direct_factual_cells() -> None:
    runs = [
        (
            "m",
            [
                make_record(True, quantity="all"),
                make_record(False, quantity="all", form="fol"),
                make_record(False, quantity="all", cot=True),
                make_record(False, quantity="all", shots=2),
                make_record(False, quantity="few", cite_rule=True),
                make_record(True, quantity="all", counterfactual=True),
                make_record(True, task="clutrr-cf", quantity="few", counterfactual=True),
            ],
        )
    ]
    lines = table_1(runs).split("\n\n")[0].splitlines()
    assert lines[0] == "| model | form | kinship All | kinship Few |"
    assert lines[2:] == [
        "| m | FOL | 0.0 [0.0-79.3] | - |",
        "| m | NL | 100.0 [20.7-100.0] | - |",
    ]
    assert "No zero-shot" in table_1([("m", [make_record(True, quantity="all", cot=True)])])


def test_table_1_shows_a_shared_rule_list_run_on_one_row_per_form() -> None:
    # A shared layout applies to all-rule prompts only: few-rule cells stay per item.
    runs = [
        (
            "m",
            [make_record(True, quantity="all", layout="shared"), make_record(False)],
        )
    ]
    lines = table_1(runs).split("\n\n")[0].splitlines()
    assert lines[2:] == ["| m | NL, shared rule list | 100.0 [20.7-100.0] | 0.0 [0.0-79.3] |"]
