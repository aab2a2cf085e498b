from pathlib import Path

from rulebench.inferential.analysis import Record
from rulebench.report.inferential import write_report


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
    ):
        assert heading in text
    assert "| model-a | NL |" in text and "model-b" in text
    for name in ("rule_quantity", "dimensions"):
        for suffix in (".png", ".svg"):
            assert (tmp_path / f"{name}{suffix}").stat().st_size > 1000
    assert (tmp_path / "dimensions.png").read_bytes()[:4] == b"\x89PNG"
