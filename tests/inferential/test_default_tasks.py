"""With no task named, an option some default tasks lack runs on those that have it, and says so.

`--scoring loglik` needs candidate answers and `--counterfactual on` a counterfactual form;
StringGame has neither. Naming the task keeps the refusal.
"""

import logging
import shutil
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.engine.catalog import build_task
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.engine.store.database import Store
from rulebench.inferential.data import DEFAULT_TASKS
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialConfig, InferentialTask

from tests.command import rulebench

COUNTERFACTUAL_ONLY = Grid(counterfactual=(True,), cot=(True,), shots=2, cite_rule=True)


def spec_tasks(config: InferentialConfig) -> tuple[str, ...]:
    spec = make_spec("inferential", "scripted/echo", config, RunSettings())
    return tuple(spec.task_config["tasks"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("config", "lacking"),
    [
        (InferentialConfig(scoring="loglik"), "--scoring loglik needs candidate answers"),
        (InferentialConfig(scoring="loglik-norm"), "--scoring loglik-norm needs candidate"),
        (InferentialConfig(grid=COUNTERFACTUAL_ONLY), "--counterfactual on needs a counterfactual"),
    ],
)
def test_default_tasks_lacking_an_option_are_left_out_with_one_warning(
    config: InferentialConfig, lacking: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert "stringgame" in DEFAULT_TASKS
    with caplog.at_level(logging.WARNING):
        tasks = spec_tasks(config)
    assert tasks == tuple(t for t in DEFAULT_TASKS if t != "stringgame")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "stringgame" in warnings[0] and lacking in warnings[0]
    # The stored config names the tasks kept: a resume builds exactly these.
    build_task("inferential", make_spec("inferential", None, config, RunSettings()).task_config)


def test_options_every_default_task_has_keep_them_all_without_a_word(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        assert spec_tasks(InferentialConfig(grid=Grid(counterfactual=(False, True)))) == (
            DEFAULT_TASKS
        )
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    ("config", "refusal"),
    [
        (InferentialConfig(tasks=("stringgame",), scoring="loglik"), "has open answers"),
        (InferentialConfig(tasks=("stringgame",), grid=COUNTERFACTUAL_ONLY), "no counterfactual"),
    ],
)
def test_a_named_task_lacking_the_option_is_still_refused(
    config: InferentialConfig, refusal: str
) -> None:
    spec = make_spec("inferential", "scripted/echo", config, RunSettings())
    with pytest.raises(ConfigError, match=refusal):
        task = build_task("inferential", spec.task_config)
        assert isinstance(task, InferentialTask)
        task.items()


@pytest.mark.subprocess
def test_the_getting_started_counterfactual_command_runs_on_the_tasks_that_can(
    tmp_path: Path,
) -> None:
    result = rulebench(
        "run", "inferential", "--cite-rule", "--counterfactual", "on", "--shots", "2",
        "--cot", "on", "-m", "scripted/echo", "--per-group", "3", "--store",
        f"{tmp_path}/store.sqlite",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    [line] = [line for line in result.stderr.splitlines() if "left out" in line]
    assert "stringgame" in line and "-t" in line


OFFICIAL_FIXTURE = Path(__file__).parent / "tasks" / "fixtures" / "official"


def test_a_data_root_without_tasks_runs_the_release_datasets_it_holds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "dataset"
    for name in ("deer", "clutrr-cf", "clutrr"):
        shutil.copytree(OFFICIAL_FIXTURE / name, root / name)
    with caplog.at_level(logging.WARNING):
        tasks = spec_tasks(InferentialConfig(data_root=str(root)))
    assert tasks == ("clutrr", "clutrr-cf", "deer")  # the registry's order, not the folder's
    [line] = [r.getMessage() for r in caplog.records]
    assert "--data-root" in line and "clutrr, clutrr-cf, deer" in line and "-t" in line
    counterfactual = InferentialConfig(data_root=str(root), grid=COUNTERFACTUAL_ONLY)
    assert spec_tasks(counterfactual) == ("clutrr-cf",)


def test_a_data_root_holding_no_dataset_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=f"--data-root {tmp_path} holds none"):
        spec_tasks(InferentialConfig(data_root=str(tmp_path)))


def test_named_tasks_with_a_data_root_are_kept(tmp_path: Path) -> None:
    config = InferentialConfig(tasks=("kinship",), data_root=str(tmp_path))
    assert spec_tasks(config) == ("kinship",)


@pytest.mark.subprocess
def test_a_paper_grid_on_a_data_root_runs_its_datasets_not_the_generated_ones(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store.sqlite"
    result = rulebench(
        "run", "inferential", "--data-root", str(OFFICIAL_FIXTURE), "-m", "scripted/echo",
        "--per-group", "1", "-q", "golden", "--store", str(store), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        tasks = {r.metadata["task"] for r in db.iter_results(run.id)}
    assert tasks and not tasks & {"kinship", "stringgame"}
