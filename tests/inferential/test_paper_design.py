"""--grid paper runs the paper's whole design, and never silently drops what the user asked."""

from pathlib import Path

from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.inferential.task import InferentialTask

from tests.stored_json import json_at

OFFICIAL = Path(__file__).parent / "tasks" / "fixtures" / "official"


def cells(task: str) -> set[str]:
    config = {"tasks": [task], "per_group": 3, "data_root": str(OFFICIAL), "design": "paper"}
    return {str(item.metadata["setting"]) for item in InferentialTask(**config).items()}


def test_a_factual_dataset_gets_experiments_one_to_three() -> None:
    assert cells("clutrr") == {
        "none/nl/direct",
        *(f"{q}/{f}/direct" for q in ("golden", "few", "all") for f in ("nl", "fol")),
        "golden/nl/direct/2-shot",
        "few/nl/direct/2-shot",
        "golden/nl/cot/2-shot",
        "few/nl/cot/2-shot",
    }
    assert cells("theoremQA") >= {"golden/nl/cot/1-shot"}  # the paper's one shot there


def test_a_counterfactual_set_gets_experiments_four_and_five() -> None:
    assert cells("law-cf") == {
        "golden/nl/cot/2-shot/cf",
        "few/nl/cot/2-shot/cf",
        "few/nl/cot/2-shot/cf/cite",
    }


def test_generated_twins_get_every_experiment() -> None:
    assert {"few/nl/cot/2-shot/cf/cite", "all/fol/direct", "golden/nl/cot/2-shot"} <= cells(
        "kinship"
    )


def test_grid_paper_with_a_setting_option_is_an_error(tmp_path: Path) -> None:
    command = ["run", "inferential", "--grid", "paper", "--cot", "off", "-m", "scripted/echo"]
    result = CliRunner().invoke(app, [*command, "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 1
    assert "--grid paper sets the experiment settings itself; drop --cot" in str(result.exception)


def test_grid_paper_decodes_like_the_paper(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    command = ["run", "inferential", "--grid", "paper", "-t", "deer", "--data-root", str(OFFICIAL)]
    result = CliRunner().invoke(
        app, [*command, "-m", "scripted/echo", "--per-group", "1", "--store", store, "--json"]
    )
    assert result.exit_code in (0, 1), result.output  # an echo answers wrong, never errs
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        assert json_at(run.config, "generate", "max_tokens") == 500
        assert json_at(run.config, "generate", "temperature") == 0.0
        assert db.count_results(run.id)["error"] == 0
