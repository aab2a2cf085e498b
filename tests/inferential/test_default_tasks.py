"""With no task named, an option some default tasks lack runs on those that have it, and says so.

`--scoring loglik` needs candidate answers and `--counterfactual on` a counterfactual form;
StringGame has neither. Naming the task keeps the refusal.
"""

import logging

import pytest

from rulebench.core.errors import ConfigError
from rulebench.engine.catalog import RunSettings, build_task, make_spec
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
    tmp_path: object,
) -> None:
    result = rulebench(
        "run", "inferential", "--cite-rule", "--counterfactual", "on", "--shots", "2",
        "--cot", "on", "-m", "scripted/echo", "--per-group", "3", "--store",
        f"{tmp_path}/store.sqlite",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    [line] = [line for line in result.stderr.splitlines() if "left out" in line]
    assert "stringgame" in line and "-t" in line
