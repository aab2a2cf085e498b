"""`train irft` reads every default from IrftConfig, speaks the shared vocabulary (--dtype,
--resume RUN) and still takes the old --precision with a warning.

No training here: a model without weights stops the command right after it prints its
settings, and resumes are checked against runs stored by hand.
"""

from pathlib import Path

import pytest
from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.run_kinds import TRAINING_TASK
from rulebench.engine.run_specs import NotAnEvaluation, stored_spec
from rulebench.engine.store.database import Store
from rulebench.train.irft_config import IrftConfig
from rulebench.train.irft_output import stored_config

runner = CliRunner()


def settings_line(tiny_data: Path, tmp_path: Path, *args: str) -> tuple[str, str]:
    """(the settings `train irft` printed, the whole of stderr): an HTTP model stops it."""
    command = ["train", "irft", "--data", str(tiny_data), "-o", str(tmp_path / "out")]
    command += ["-m", "openai/gpt-4o", "--device", "cpu", *args]
    result = runner.invoke(app, [*command, "--store", str(tmp_path / "s.sqlite")])
    assert isinstance(result.exception, ConfigError), result.output
    assert "tunes hf models only" in str(result.exception)
    stderr = " ".join(result.stderr.split())
    return stderr[stderr.index("irft: ") :], stderr


def expected_line(config: IrftConfig) -> str:
    """The settings as `train irft` prints them, from the config alone (device and dtype cut)."""
    return (
        f"LoRA rank {config.rank}, alpha {config.alpha}, layers {config.layers or 'all'}, "
        f"dropout {config.dropout:g}, learning rate {config.learning_rate:g}, "
        f"{config.steps_or_epochs()[0]} steps of batch {config.batch_size} x accum "
        f"{config.grad_accum}, max length {config.max_length}, seed {config.seed}, checkpoint "
        f"every {config.save_steps} steps, eval loss on {config.eval_size} test examples"
    )


@pytest.mark.parametrize("args", [(), ("--rank", "4", "--eval-size", "0", "-n", "5")])
def test_the_command_runs_the_config_the_python_api_builds(
    tiny_data: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    changes = {"rank": 4, "eval_size": 0, "limit": 5} if args else {}
    config = IrftConfig(data=tiny_data, output=tmp_path / "out", **changes)
    line, _ = settings_line(tiny_data, tmp_path, *args)
    assert expected_line(config) in line, line


def test_the_old_precision_option_warns_and_maps_to_dtype(tiny_data: Path, tmp_path: Path) -> None:
    line, stderr = settings_line(tiny_data, tmp_path, "--precision", "fp32")
    assert "--precision is now --dtype" in stderr
    assert "test examples, cpu float32" in line, line
    with pytest.warns(FutureWarning, match="'precision' is now 'dtype'"):
        old = IrftConfig.model_validate({"data": "d", "output": "o", "precision": "bf16"})
    assert old.dtype == "bfloat16"


def test_the_old_bare_resume_flag_is_one_error_naming_the_new_form(tmp_path: Path) -> None:
    result = runner.invoke(app, ["train", "irft", "-o", str(tmp_path), "--resume", "--json"])
    assert isinstance(result.exception, ConfigError), result.output
    assert "--resume takes the run id now: rulebench train irft --resume RUN" in str(
        result.exception
    )


def stored_run(store_path: Path, config: dict[str, JsonValue], task: str = TRAINING_TASK) -> str:
    with Store(store_path) as db:
        return db.create_run(task, "hf/m", config | {"data_hash": "abc", "base_model": {}}).id


def test_resume_reads_the_stored_config_old_field_names_included(tmp_path: Path) -> None:
    old: dict[str, JsonValue] = {
        "data": "d",
        "output": str(tmp_path / "o"),
        "rank": 4,
        "precision": "fp32",
    }
    run_id = stored_run(tmp_path / "s.sqlite", old)
    with pytest.warns(FutureWarning, match="precision"):
        config, store = stored_config(run_id, tmp_path / "s.sqlite", {"device": "cpu"})
    assert store == tmp_path / "s.sqlite"
    assert config == IrftConfig(
        data=Path("d"), output=tmp_path / "o", rank=4, dtype="float32", device="cpu"
    )


def test_resume_refuses_training_options_and_runs_of_other_tasks(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = stored_run(store, {"data": "d", "output": "o"})
    result = runner.invoke(
        app, ["train", "irft", "--resume", run_id, "--rank", "8", "--store", str(store)]
    )
    assert isinstance(result.exception, ConfigError), result.output
    assert "drop --rank" in str(result.exception)
    other = stored_run(store, {"scenario": "Encryption"}, task="gcg")
    with pytest.raises(StoreError, match="not a tuning run"):
        stored_config(other, store, {})


def test_help_shows_the_config_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    shown = runner.invoke(app, ["train", "irft", "--help"]).stdout
    lines = {line.split()[1]: line for line in shown.splitlines() if line.startswith("│ --")}
    assert f"[default: {IrftConfig.model_fields['rank'].default}]" in lines["--rank"]
    assert (
        f"[default: {IrftConfig.model_fields['learning_rate'].default}]" in lines["--learning-rate"]
    )
    assert "--precision" not in lines and "RUN" in lines["--resume"]


def test_run_resume_of_a_tuning_run_names_the_command_that_resumes_it(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = stored_run(store, {"data": "d", "output": "o"})
    with Store(store) as db, pytest.raises(NotAnEvaluation) as refused:
        stored_spec(db, run_id)  # the engine says what it is; the CLI names the command
    assert (refused.value.run_id, refused.value.task) == (run_id, TRAINING_TASK)
    result = runner.invoke(app, ["run", "--resume", run_id, "--store", str(store)])
    assert isinstance(result.exception, StoreError)
    assert f"resume it with `rulebench train irft --resume {run_id}`" in str(result.exception)
