from pathlib import Path

import pytest

from rulebench.inferential.analysis import Cell, Record
from rulebench.inferential.echo_baseline import EchoRecord
from rulebench.report.inferential import (
    BEHAVIOUR_COMMAND,
    error_section,
    write_report,
)
from rulebench.report.paper_tables import table_2
from rulebench.report.plots import measured_axes, radar

from tests.inferential.records import make_record


def records(p_correct_every: int) -> list[Record]:
    out = []
    for i in range(40):
        for quantity in ("none", "golden", "few", "all"):
            for form in ("nl", "fol"):
                out.append(
                    Record(
                        task="kinship" if i % 2 else "stringgame",
                        quantity=quantity,
                        form=form,
                        cot=i % 4 == 0,
                        counterfactual=i % 5 == 0,
                        correct=i % p_correct_every != 0,
                        cited=1 + i % 3,
                        golden_index=1,
                        listed=3,
                    )
                )
    return out


def record(correct: bool, **kw: object) -> Record:
    return make_record(correct, **kw)


def test_report_writes_every_section_and_both_plot_formats(tmp_path: Path) -> None:
    path = write_report([("model-a", records(2)), ("model-b", records(3))], tmp_path, "robust")
    text = path.read_text()
    for heading in (
        "Rule form (Table 1 shape)",
        "Table 2 shape",
        "Rule quantity",
        "Chain of thought",
        "Triggering vs execution",
        "Capability dimensions",
        "Long-tail labels (SALAD)",
        "Prompt echo baseline",
    ):
        assert heading in text
    assert "| model-a | NL | direct, 0-shot |" in text and "model-b" in text
    for name in ("rule_quantity", "dimensions"):
        for suffix in (".png", ".svg"):
            assert (tmp_path / f"{name}{suffix}").stat().st_size > 1000
    assert (tmp_path / "dimensions.png").read_bytes()[:4] == b"\x89PNG"


def test_table_2_pairs_generated_twins_and_labels_official_sets_unpaired() -> None:
    kinship = [record(i < 6, quantity="golden", sample_id=f"k{i}") for i in range(8)]
    kinship += [r._replace(counterfactual=True, correct=i < 2) for i, r in enumerate(kinship)]
    clutrr = [record(True, task="clutrr", sample_id=f"c{i}") for i in range(5)]
    clutrr += [
        record(False, task="clutrr-cf", counterfactual=True, sample_id=f"f{i}") for i in range(7)
    ]
    text = table_2([("m", [*kinship, *clutrr])])
    header = "| model | form | answer | rules are | clutrr Golden | clutrr Few | kinship Golden |"
    assert header + " kinship Few |" in text
    assert "| m | NL | direct, 0-shot | C.F. | - | 0.0 [0.0-35.4] | 25.0 [7.1-59.1] | - |" in text
    assert "| m | clutrr / clutrr-cf | few |" in text and "| unpaired |" in text
    assert "| m | kinship / kinship | golden |" in text and "| paired, 8 items |" in text
    assert "No counterfactual results" in table_2([("m", clutrr[:5])])


def test_error_split_only_for_cited_runs_and_otherwise_says_how() -> None:
    wrong = [record(False, cited=2), record(False, cited=1)]
    uncited = error_section([("plain", wrong)])
    assert "--cite-rule" in uncited and BEHAVIOUR_COMMAND in uncited and "|" not in uncited
    cited = error_section(
        [("cites", [r._replace(cite_rule=True) for r in wrong]), ("plain", wrong)]
    )
    assert "| cites | kinship | few | direct, 0-shot, cites rule | factual | 2 |" in cited
    assert "Not asked to cite rules: plain." in cited


def test_unmeasured_dimensions_are_named_and_left_off_the_radar(tmp_path: Path) -> None:
    runs = [("golden-only", [record(True, quantity="golden")] * 4)]
    text = write_report(runs, tmp_path, "paper").read_text()
    assert "| golden-only | 100.0 [51.0-100.0] | 100.0 [51.0-100.0] | not measured |" in text
    import matplotlib

    series = {"a": {"Executing": 0.5}, "b": {"Executing": 0.7, "Formal": 0.2}}
    names = ("Executing", "Triggering", "Formal")
    assert measured_axes(series, names) == ["Executing", "Formal"]
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # keep text as text in the SVG
        [_, svg] = radar(series, names, tmp_path / "radar")
    drawn = svg.read_text()
    assert "Triggering" not in drawn and "a (not measured: Formal)" in drawn
    assert radar({"a": {}}, names, tmp_path / "none") == []


def test_long_tail_and_echo_sections(tmp_path: Path) -> None:
    golds = ["O1"] * 9 + ["O5"]
    salad = [
        record(gold == "O1", task="salad", sample_id=f"s{i}", gold=gold)
        for i, gold in enumerate(golds)
    ]
    cell = Cell("salad", "few", "nl", False, 0, False, False, "per-item")
    echoes = {"m": [EchoRecord(cell, True, False, 1 / 6, True)] * 10}
    text = write_report([("m", salad)], tmp_path, "robust", echoes).read_text()
    assert "| O5 (10.0% of 10) | 90.0 [59.6-98.2] | 0.0 [0.0-79.3] |" in text
    assert "| 100.0 [72.2-100.0] | 0.0 [0.0-27.8] | CHECK: paper ≥ 50% |" in text
    assert "1 of 1 cells flagged" in text


@pytest.mark.parametrize("echoes", [None, {}])
def test_echo_section_without_echoes_says_so(
    tmp_path: Path, echoes: dict[str, list[EchoRecord]] | None
) -> None:
    text = write_report([("m", [record(True)])], tmp_path, "robust", echoes).read_text()
    expected = "Not computed" if echoes is None else "No generated replies"
    assert expected in text.split("## Prompt echo baseline", 1)[1]


def test_report_command_flags_law_where_an_echo_of_the_prompt_scores(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rulebench.cli.app import app
    from rulebench.engine.store.database import Store

    fixtures = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"
    store = str(tmp_path / "s.sqlite")
    runner = CliRunner()
    task = ["-t", "law", "--data-root", str(fixtures), "-q", "golden"]
    model = ["-m", "scripted/fixed", "-M", "reply=Answer: none"]
    run = runner.invoke(app, ["run", "inferential", *task, *model, "--store", store])
    assert run.exit_code == 0, run.output
    with Store(store) as db:
        run_id = db.list_runs()[0].id
    out = tmp_path / "report"
    report = runner.invoke(app, ["report", "inferential", run_id, "-o", str(out), "--store", store])
    assert report.exit_code == 0, report.output
    echo = (out / "report.md").read_text().split("## Prompt echo baseline", 1)[1]
    # The model never names a charge (0%), yet a copy of its prompt scores in paper mode.
    assert "| law | golden | NL | direct, 0-shot | factual | 0.0 [0.0-56.1] | 100.0" in echo
    assert "CHECK: paper ≥ 50%" in echo and "judged without" not in echo
