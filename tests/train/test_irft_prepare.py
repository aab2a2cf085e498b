"""`prepare_irft` and the `train irft` notes: the library builds the run the command trains.

The command only parses and prints, so its settings line is the one `irft_notes` composes for
the config `prepare_irft` builds from the same options; a model without weights stops the
command right after it prints its settings.
"""

import json
from pathlib import Path

import pytest
from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.core.run_kinds import TRAINING_TASK
from rulebench.engine.store.database import Store
from rulebench.train.irft import IrftResult
from rulebench.train.irft_config import IrftConfig
from rulebench.train.irft_notes import (
    finished_earlier_line,
    result_lines,
    settings_line,
    stopped_note,
    stopped_run_id,
)
from rulebench.train.irft_options import (
    MISSING_FOLDERS,
    OLD_BARE_RESUME,
    IrftOptions,
    given_fields,
    prepare_irft,
)
from rulebench.train.irft_record import RUN_FILE, Invocation

runner = CliRunner()


def test_the_command_prints_the_settings_of_the_config_prepare_irft_builds(
    tiny_data: Path, tmp_path: Path
) -> None:
    output, store = tmp_path / "out", tmp_path / "s.sqlite"
    args = ["--rank", "4", "--eval-size", "0", "-n", "5", "--device", "cpu", "--max-steps", "7"]
    command = ["train", "irft", "--data", str(tiny_data), "-o", str(output), "-m", "openai/x"]
    result = runner.invoke(app, [*command, *args, "--store", str(store)])
    assert isinstance(result.exception, ConfigError), result.output
    options = IrftOptions(
        data=tiny_data, output=output, model="openai/x", rank=4, eval_size=0, limit=5,
        device="cpu", max_steps=7,
    )  # fmt: skip
    prepared = prepare_irft(options, store)
    assert prepared.config == IrftConfig(
        data=tiny_data, output=output, model="openai/x", rank=4, eval_size=0, limit=5,
        device="cpu", max_steps=7,
    )  # fmt: skip
    assert (prepared.store, prepared.resume) == (store, False)
    assert settings_line(prepared.config) in " ".join(result.stderr.split())


def test_options_left_out_keep_the_config_defaults_and_a_zero_is_given() -> None:
    options = IrftOptions(data=Path("d"), output=Path("o"), eval_size=0)
    assert given_fields(options) == {"data": Path("d"), "output": Path("o"), "eval_size": 0}
    assert prepare_irft(options).config == IrftConfig(data=Path("d"), output=Path("o"), eval_size=0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (IrftOptions(output=Path("o")), MISSING_FOLDERS),
        (IrftOptions(data=Path("d"), output=Path("o"), rank=0), "train irft: rank: Input should"),
        (IrftOptions(resume="--json"), OLD_BARE_RESUME),
    ],
)
def test_bad_options_are_one_config_error(options: IrftOptions, message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        prepare_irft(options)
    assert str(refused.value).startswith(message)


def test_a_resume_reads_the_stored_run_and_its_store(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    fields: dict[str, JsonValue] = {
        "data": "d",
        "output": "o",
        "rank": 4,
        "data_hash": "abc",
        "base_model": {},
    }
    with Store(store) as db:
        run_id = db.create_run(TRAINING_TASK, "hf/m", fields).id
    prepared = prepare_irft(IrftOptions(resume=run_id, merge=True, device="cpu"), store)
    assert prepared.config == IrftConfig(
        data=Path("d"), output=Path("o"), rank=4, merge=True, device="cpu"
    )
    assert (prepared.store, prepared.resume) == (store, True)


def result(**changes: object) -> IrftResult:
    fields: dict[str, object] = {
        "run_id": "r1", "adapter": Path("o/adapter"), "merged": None, "steps": 3,
        "train_tokens": 12345, "wall_s": 61.4, "tokens_per_s": 201.06,
        "eval_loss_before": 1.5, "eval_loss_after": None, "loss_curve": [[1.0, 1.2]],
    }  # fmt: skip
    return IrftResult.model_validate(fields | changes)


def test_result_lines_say_steps_throughput_losses_and_weights() -> None:
    assert result_lines(result()) == [
        "run r1: 3 steps, 12,345 tokens in 61 s (201.1 tokens/s)",
        "eval loss (test examples): 1.5000 -> -",
        "adapter: o/adapter",
    ]
    runs = [Invocation(pid=1, started="t", from_step=0, to_step=2)] * 2
    lines = result_lines(result(merged=Path("o/merged"), invocations=runs))
    assert lines[0].endswith("tokens/s) in 2 invocations")
    assert lines[-1] == "merged model: o/merged"


def test_a_run_finished_earlier_is_said_with_its_folder() -> None:
    config = IrftConfig(data=Path("d"), output=Path("o"))
    assert finished_earlier_line(result(finished_earlier=True), config) == (
        "run r1 in o finished earlier (3 steps): nothing to resume, nothing written"
    )


def test_a_stopped_run_says_what_it_kept_and_names_its_run(tmp_path: Path) -> None:
    assert stopped_note(tmp_path) == f"Nothing was saved in {tmp_path}: run the same command again."
    assert stopped_run_id(tmp_path) is None
    (tmp_path / RUN_FILE).write_text(
        json.dumps({"run_id": "r7", "config": {}, "store": "s.sqlite"})
    )
    assert stopped_note(tmp_path).startswith("No checkpoint was saved yet")
    assert stopped_run_id(tmp_path) == "r7"
    (tmp_path / "checkpoints" / "checkpoint-20").mkdir(parents=True)
    assert stopped_note(tmp_path) == (
        f"The run is stored as interrupted; its checkpoints are in {tmp_path}."
    )
