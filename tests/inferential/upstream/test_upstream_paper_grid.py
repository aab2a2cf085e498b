"""`--grid paper --prompts upstream` on a clone shaped like upstream's HEAD runs to the end.

HEAD's law-cf rule-citation prompt raises ValueError (literal braces in an f-string): that cell
is left out, named with upstream's error when the run starts, recorded in the run's config,
shown by `runs show` and in the report; every other cell of the design runs, and the run is
completed over the items it made. The command is the RuleBench guide's, read from the page.
"""

import logging
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.engine.store.database import Store
from rulebench.inferential.data import load_task
from rulebench.inferential.item_meta import ItemMeta
from rulebench.inferential.settings import design_settings, paper_design
from rulebench.inferential.task import InferentialConfig, InferentialTask

from tests.inferential.upstream.clone_fixture import BUILDS_LAW_CF_CITE, grow_rules, make_clone

TASKS = ("clutrr", "clutrr-cf", "deer", "theoremQA", "ulogic", "ulogic-cf", "law", "law-cf")
CITE_CELL = "law-cf few/nl/cot/2-shot/cf/cite"


def _clone(tmp_path: Path, text: str | None = None) -> Path:
    clone = make_clone(tmp_path, text)
    grow_rules(clone, "law", 20)
    grow_rules(clone, "law-cf", 5)
    return clone


GUIDE = Path(__file__).parents[3] / "docs" / "guides" / "rulebench-tables.md"


def _guide_command(data: Path, store: str) -> list[str]:
    """The guide's paper command (section 3's first block), on this data and a scripted model."""
    section = GUIDE.read_text(encoding="utf-8").split("\n## 3. Run the five experiments", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    line = block.replace("\\\n", " ").replace("$DATA", str(data)).replace("$MODEL", "scripted/echo")
    words = shlex.split(line)
    assert words[:3] == ["rulebench", "run", "inferential"] and "--grid" in words, line
    return [*words[1:], "--store", store]


def _design_cells(clone: Path) -> set[str]:
    """Every cell of the paper design on these datasets."""
    cells = set()
    for task in TASKS:
        data = load_task(task, None, 0, clone / "dataset")
        settings = design_settings(task, data, paper_design(0))
        cells |= {f"{task} {setting.label()}" for setting in settings}
    return cells


def test_the_paper_grid_runs_to_the_end_and_names_the_cell_it_left_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clone = _clone(tmp_path)
    store = str(tmp_path / "runs.db")
    args = _guide_command(clone / "dataset", store)
    runner = CliRunner()
    with caplog.at_level(logging.WARNING):
        result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    [line] = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert line.startswith(f"left out {CITE_CELL}: upstream's code cannot build it: ")
    assert "ValueError: Invalid format specifier" in line and "line " in line
    with Store(store) as db:
        run = db.list_runs()[0]
        assert db.effective_status(run) == "completed"
        cells = {ItemMeta.read(r.metadata).cell for r in db.iter_results(run.id)}
    assert cells == _design_cells(clone) - {CITE_CELL}
    config = run.config["task_config"]
    assert isinstance(config, dict)
    [skipped] = config["upstream_skipped"]  # type: ignore[misc,str-unpack]
    assert isinstance(skipped, dict)
    assert skipped["task"] == "law-cf" and skipped["setting"] == "few/nl/cot/2-shot/cf/cite"
    shown = runner.invoke(app, ["runs", "show", run.id, "--store", store])
    shown_text = " ".join(shown.output.split())  # the terminal wraps long lines
    assert f"skipped (the clone cannot build them): {CITE_CELL}" in shown_text
    out = tmp_path / "report"
    report = runner.invoke(app, ["report", run.id, "-o", str(out), "--store", store])
    assert report.exit_code == 0, report.output
    text = (out / "report.md").read_text(encoding="utf-8")
    assert f"left out {CITE_CELL}: upstream" in text and "Invalid format specifier" in text
    # the behaviour split, then the same wrong answers as upstream's parse counts them
    assert "| execution as upstream counts % [95% CI] |" in text
    assert "| law-cf | few | CoT, 2-shot, cites rule |" not in text


@pytest.mark.parametrize(("text", "skipped"), [(None, [CITE_CELL]), (BUILDS_LAW_CF_CITE, [])])
def test_only_the_cells_the_clone_cannot_build_are_recorded(
    tmp_path: Path, text: str | None, skipped: list[str]
) -> None:
    clone = _clone(tmp_path, text)
    config = InferentialConfig(
        tasks=("law-cf", "deer"),
        design="paper",
        prompts="upstream",
        data_root=str(clone / "dataset"),
    )
    spec = make_spec("inferential", "scripted/echo", config, RunSettings())
    stored = spec.task_config["upstream_skipped"]
    assert isinstance(stored, list)
    assert [f"{c['task']} {c['setting']}" for c in stored if isinstance(c, dict)] == skipped


def test_a_resumed_run_leaves_out_the_same_cells(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    config = InferentialConfig(
        tasks=("law-cf",), design="paper", prompts="upstream", data_root=str(clone / "dataset")
    )
    spec = make_spec("inferential", "scripted/echo", config, RunSettings())
    # what --resume rebuilds: the stored config, never probed again
    items = InferentialTask(**spec.task_config).items()
    cells = {ItemMeta.read(item.metadata).cell for item in items}
    assert cells == {"law-cf golden/nl/cot/2-shot/cf", "law-cf few/nl/cot/2-shot/cf"}
