"""`train irft`: option checks (fast) and tiny tuning runs (slow).

The runs tune `tiny_model` (a few narrow blocks, the embedded model's tokenizer): what is
checked here is how a run trains, stops, resumes and records itself, which does not need the
embedded model's knowledge, only its tokens.
"""

import json
import os
from pathlib import Path
from typing import Any

import pytest

from rulebench.core.errors import ConfigError, DataError
from rulebench.core.validation import validate_into
from rulebench.engine.store.database import Store
from rulebench.train.irft import RUN_FILE, IrftResult, read_run_file, run_irft
from rulebench.train.irft_config import DEFAULT_MAX_STEPS, IrftConfig, check_model_spec

from tests.command import assert_one_line_error, rulebench
from tests.stored_json import json_list
from tests.train.tiny_runs import TINY_LAYERS, Recorder, snapshot, tiny_config


@pytest.mark.parametrize("spec", ["openai/gpt-4o-mini", "llamacpp/SmolLM2-135M-Instruct"])
def test_only_hf_models_can_be_tuned(spec: str) -> None:
    with pytest.raises(ConfigError, match="irft tunes hf models only"):
        check_model_spec(spec)


def test_steps_default_and_epochs_exclude_steps(tmp_path: Path) -> None:
    base = {"data": tmp_path, "output": tmp_path / "o"}
    assert validate_into(IrftConfig, base, "x").steps_or_epochs() == (DEFAULT_MAX_STEPS, 1.0)
    assert validate_into(IrftConfig, base | {"epochs": 2}, "x").steps_or_epochs() == (-1, 2.0)
    with pytest.raises(ConfigError, match="give epochs or max_steps, not both"):
        validate_into(IrftConfig, base | {"epochs": 2, "max_steps": 5}, "train irft")


def test_a_folder_that_is_not_data_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not an IRFT data folder"):
        run_irft(tiny_config(tmp_path, tmp_path / "out"))


# Slow: a new run reads the base model's layers before it claims its folder, and the tiny
# model reads its tokenizer from the embedded GGUF.
@pytest.mark.slow
def test_an_occupied_output_folder_is_refused(
    tiny_data: Path, tiny_model: Path, tmp_path: Path
) -> None:
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "x").write_text("mine")
    with pytest.raises(ConfigError, match="is not empty and holds no IRFT run"):
        run_irft(tiny_config(tiny_data, occupied, tiny_model))


def test_a_resume_with_nothing_to_resume_is_refused(tiny_data: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nothing to resume"):
        run_irft(tiny_config(tiny_data, tmp_path / "new"), resume=True)


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["-m", "openai/gpt-4o-mini"], "irft tunes hf models only"),
        (["--rank", "0"], "train irft: rank: Input should be greater than or equal to 1"),
        (["--epochs", "1", "--max-steps", "3"], "give epochs or max_steps, not both"),
        (["--device", "tpu"], "device: Input should be 'auto', 'cpu', 'cuda' or 'mps'"),
    ],
)
def test_bad_irft_options_are_one_line(
    tiny_data: Path, tmp_path: Path, options: list[str], message: str
) -> None:
    result = rulebench(
        "train", "irft", "--data", str(tiny_data), "-o", str(tmp_path / "o"), *options
    )
    assert_one_line_error(result, message)


@pytest.fixture(scope="module")
def tiny_run(
    tiny_model: Path, tiny_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[IrftResult, IrftConfig, Path]:
    """Three steps of batch 2 on the tiny model, merged weights too."""
    folder = tmp_path_factory.mktemp("irft-run")
    config = tiny_config(tiny_data, folder / "out", tiny_model, merge=True)
    store = folder / "store.sqlite"
    return run_irft(config, store=store, progress=Recorder()), config, store


@pytest.mark.slow
def test_tiny_run_lowers_the_loss_and_records_itself(
    tiny_run: tuple[IrftResult, IrftConfig, Path],
) -> None:
    result, config, store_path = tiny_run
    assert result.steps == 3 and result.train_tokens > 0 and result.tokens_per_s > 0
    assert result.eval_loss_before is not None and result.eval_loss_after is not None
    assert result.eval_loss_after < result.eval_loss_before
    assert [step for step, _ in result.loss_curve] == [1, 2, 3]
    with Store(store_path) as store:
        run = store.get_run(result.run_id)
    assert run.task == "irft" and run.status == "completed" and run.model == config.model
    assert run.config["rank"] == 16 and str(run.config["base_model"]).startswith("hf/")
    assert run.notes["loss_curve"] == result.loss_curve and run.notes["steps"] == 3


@pytest.mark.slow
def test_adapter_loads_with_peft_and_changes_the_output(
    tiny_run: tuple[IrftResult, IrftConfig, Path],
) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rulebench.models.hf.loading import transformers_weights

    result, config, _ = tiny_run
    base_folder, _ = transformers_weights(config.model_name)
    tokenizer = AutoTokenizer.from_pretrained(result.adapter)
    base = AutoModelForCausalLM.from_pretrained(base_folder)
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Input: ABC. Rule 1: output 3."}],
        tokenize=False,
        add_generation_prompt=True,
    )
    inputs = tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        plain = base(**inputs).logits[0, -1]
        tuned = PeftModel.from_pretrained(base, result.adapter)(**inputs).logits[0, -1]
        assert result.merged is not None
        merged = AutoModelForCausalLM.from_pretrained(result.merged)(**inputs).logits[0, -1]
    assert not torch.allclose(plain, tuned, atol=1e-3)
    assert torch.allclose(tuned, merged, atol=1e-3)


@pytest.mark.slow
def test_a_finished_run_is_not_overwritten(
    tiny_run: tuple[IrftResult, IrftConfig, Path],
) -> None:
    _, config, _ = tiny_run
    with pytest.raises(ConfigError, match="pass --resume to continue it"):
        run_irft(config)
    with pytest.raises(ConfigError, match=r"--resume with other training options: rank 8"):
        run_irft(config.model_copy(update={"rank": 8}), resume=True)


@pytest.mark.slow
def test_a_finished_run_resumed_changes_nothing(
    tiny_run: tuple[IrftResult, IrftConfig, Path],
) -> None:
    result, config, store_path = tiny_run
    with Store(store_path) as db:
        row = db.get_run(result.run_id)
    files = snapshot(config.output)
    for _ in range(2):  # each extra resume used to train one more step and rewrite the run
        again = run_irft(config, resume=True, progress=Recorder())
        assert again.finished_earlier and again.steps == 3
        assert again.model_dump(exclude={"finished_earlier"}) == result.model_dump(
            exclude={"finished_earlier"}
        )
    assert snapshot(config.output) == files
    with Store(store_path) as db:
        assert db.get_run(result.run_id) == row
    assert not any(config.output.glob("checkpoints/checkpoint-4"))


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_cli_says_a_finished_run_is_finished(
    tiny_run: tuple[IrftResult, IrftConfig, Path], tiny_data: Path
) -> None:
    result, config, store_path = tiny_run
    files = snapshot(config.output)
    done = rulebench(
        *["train", "irft", "--resume", result.run_id, "--store", str(store_path), "--json"]
    )
    assert done.returncode == 0, done.stderr
    assert f"run {result.run_id} in {config.output} finished earlier (3 steps)" in done.stderr
    assert json.loads(done.stdout)["train_tokens"] == result.train_tokens
    assert snapshot(config.output) == files


@pytest.mark.slow
def test_an_interrupted_run_counts_every_invocation_and_finishes_once(
    tiny_run: tuple[IrftResult, IrftConfig, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stopped at step 3 (checkpoint 2 kept), then a resume whose adapter rename dies, then one
    that finishes from the final checkpoint without training: the totals are tiny_run's."""
    uninterrupted, tiny, _ = tiny_run
    config = tiny.model_copy(update={"output": tmp_path / "out", "merge": False})
    store = tmp_path / "store.sqlite"
    with pytest.raises(KeyboardInterrupt):
        run_irft(config, store=store, progress=Recorder(stop_at=3))
    assert (config.output / "checkpoints" / "checkpoint-2").is_dir()
    with Store(store) as db:
        [run] = db.list_runs()
        tokens = run.notes["train_tokens"]
        assert run.status == "interrupted" and isinstance(tokens, int) and tokens > 0
    real_rename = os.rename

    def adapter_rename_dies(source: str | Path, target: str | Path) -> None:
        if Path(target).name == "adapter":
            raise OSError("killed before the adapter was in place")
        real_rename(source, target)

    monkeypatch.setattr(os, "rename", adapter_rename_dies)
    recorder = Recorder()
    with pytest.raises(OSError, match="killed before"):
        run_irft(config, resume=True, progress=recorder)
    monkeypatch.undo()
    assert recorder.begun == [(3, 2)]
    assert not (config.output / "adapter").exists()
    assert "notes" not in read_run_file(config.output)  # the previous state, readable
    assert any(config.output.glob("adapter.tmp-*"))
    finishing = Recorder()
    result = run_irft(config, resume=True, progress=finishing)
    assert finishing.begun == []  # trained to the end already: nothing trained again
    assert not any(config.output.glob("adapter.tmp-*"))
    assert not (config.output / "checkpoints" / "checkpoint-4").exists()
    assert result.steps == 3 and [step for step, _ in result.loss_curve] == [1, 2, 3]
    how = [(i.ended_as, i.from_step, i.to_step) for i in result.invocations]
    assert how == [("interrupted", 0, 2), ("failed", 2, 3), ("completed", 3, 3)]
    assert result.train_tokens == sum(i.train_tokens for i in result.invocations)
    assert result.train_tokens == uninterrupted.train_tokens
    assert result.wall_s == pytest.approx(sum(i.wall_s for i in result.invocations), abs=0.02)
    assert result.eval_loss_before == pytest.approx(uninterrupted.eval_loss_before, abs=1e-3)
    with Store(store) as db:
        stored = db.get_run(run.id)
    assert stored.status == "completed" and stored.notes["train_tokens"] == result.train_tokens
    assert len(json_list(stored.notes["invocations"])) == 3


def test_dtype_follows_the_option_and_auto_needs_hardware() -> None:
    from rulebench.train.trainer import use_bf16

    assert use_bf16("bfloat16", "cpu") and not use_bf16("float32", "cuda")
    assert not use_bf16("auto", "mps")
    assert isinstance(use_bf16("auto", "cpu"), bool)


def test_an_adapter_option_that_is_no_adapter_is_refused(tmp_path: Path) -> None:
    from rulebench.models.base import BackendOptions
    from rulebench.models.registry import create_model

    with pytest.raises(ConfigError, match="not a LoRA adapter folder"):
        create_model("hf/SmolLM2-135M-Instruct", BackendOptions(args={"adapter": str(tmp_path)}))


@pytest.mark.slow
def test_the_hf_backend_evaluates_the_adapter_and_the_merged_weights(
    tiny_run: tuple[IrftResult, IrftConfig, Path],
) -> None:
    import asyncio

    from rulebench.core.messages import Message
    from rulebench.models.base import BackendOptions, ChoiceScorer
    from rulebench.models.registry import create_model

    result, config, _ = tiny_run
    assert result.merged is not None
    cpu = {"device": "cpu", "dtype": "float32"}
    models = [
        create_model(config.model, BackendOptions(args=cpu)),
        create_model(config.model, BackendOptions(args=cpu | {"adapter": str(result.adapter)})),
        create_model(f"hf/{result.merged}", BackendOptions(args=cpu)),
    ]
    question = [Message(role="user", content="Input: ABBA\nRule 1: output the length.")]
    scores = []
    for model in models:
        assert isinstance(model, ChoiceScorer)
        scores.append(asyncio.run(model.score_choices(question, ["4", "7", "12"])).scores)
    plain, tuned, merged = scores
    assert plain != pytest.approx(tuned, abs=1e-3)
    assert tuned == pytest.approx(merged, abs=1e-2)
    base_identity, tuned_identity = models[0].info.identity, models[1].info.identity
    assert "+lora@sha256:" in tuned_identity and "+lora" not in base_identity


@pytest.mark.slow
def test_compare_measures_the_base_and_the_tuned_run_on_real_models(
    tiny_run: tuple[IrftResult, IrftConfig, Path], tmp_path: Path
) -> None:
    import asyncio

    from rulebench.study.irft import StudyConfig, contender, run_study, write_outputs

    _, config, _ = tiny_run
    base = contender("base", config.model)
    tuned = contender("tuned", str(config.output))
    study = StudyConfig(
        stringgame_per_group=2, rulebench_per_group=2, scenarios=False, max_tokens=12
    )
    with Store(tmp_path / "study.sqlite") as store:
        result = asyncio.run(run_study(study, base, tuned, store))
    assert result.complete and [row.pairs for row in result.rows] == [2, 2, 2]
    written = {path.name for path in write_outputs(result, tmp_path / "out")}
    assert {"compare.md", "loss-curve.png", "loss-curve.svg"} <= written


@pytest.mark.slow
def test_another_rank_trains_but_records_nothing(
    tiny_data: Path, tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RANK", "1")  # as `accelerate launch` sets it in its second process
    config = tiny_config(tiny_data, tmp_path / "out", tiny_model, max_steps=1, eval_size=0)
    result = run_irft(config, store=tmp_path / "store.sqlite")
    assert result.steps == 1 and result.run_id == ""
    assert not (tmp_path / "out" / RUN_FILE).exists()
    assert not (tmp_path / "store.sqlite").exists()


@pytest.mark.slow
def test_layers_puts_the_adapter_on_the_last_blocks_only(
    tiny_data: Path, tiny_model: Path, tmp_path: Path
) -> None:
    from safetensors import safe_open

    config = tiny_config(
        tiny_data, tmp_path / "out", tiny_model, max_steps=1, eval_size=0, layers=2
    )
    result = run_irft(config, store=tmp_path / "s.sqlite")
    with safe_open(str(result.adapter / "adapter_model.safetensors"), "pt") as weights:
        names = weights.keys()  # a safetensors handle is not iterable itself
        blocks = {int(name.split(".layers.")[1].split(".")[0]) for name in names}
    assert blocks == {TINY_LAYERS - 2, TINY_LAYERS - 1}
    deeper = TINY_LAYERS + 1
    too_deep = tiny_config(tiny_data, tmp_path / "deep", tiny_model, layers=deeper)
    with pytest.raises(ConfigError, match=f"--layers {deeper}: the model has {TINY_LAYERS} layers"):
        run_irft(too_deep, store=tmp_path / "s.sqlite")
    assert not (tmp_path / "deep").exists()


def finished_folder(tiny_data: Path, tmp_path: Path, with_notes: bool) -> tuple[IrftConfig, str]:
    """An output folder as a finished run leaves it (a run file written by hand, no weights)."""
    config = tiny_config(tiny_data, tmp_path / "out")
    notes: dict[str, Any] = {
        "adapter": str(config.output / "adapter"),
        "merged": None,
        **{"steps": 3, "train_tokens": 900, "wall_s": 9.0, "tokens_per_s": 100.0},
        **{"eval_loss_before": 1.5, "eval_loss_after": 0.5, "loss_curve": [[1, 1.0]]},
        "device": "cpu",
    }
    with Store(tmp_path / "store.sqlite") as db:
        run = db.create_run("irft", config.model, {})
        db.finish_run(run.id, "running" if with_notes else "completed", notes)
    content = {"run_id": run.id, "config": config.model_dump(mode="json")}
    content["store"] = str(tmp_path / "store.sqlite")
    if with_notes:  # killed after the run file's notes, before the store row
        content |= {"invocations": [], "notes": notes}
    (config.output / "checkpoints" / "checkpoint-3").mkdir(parents=True)
    (config.output / RUN_FILE).write_text(json.dumps(content))
    return config, run.id


@pytest.mark.parametrize("with_notes", [True, False], ids=["run-file-notes", "older-run-file"])
def test_resuming_a_finished_run_trains_and_writes_nothing(
    tiny_data: Path, tmp_path: Path, with_notes: bool
) -> None:
    config, run_id = finished_folder(tiny_data, tmp_path, with_notes)
    files = snapshot(config.output)
    result = run_irft(config, resume=True, progress=Recorder())
    assert result.finished_earlier and result.run_id == run_id
    assert (result.steps, result.train_tokens, result.eval_loss_after) == (3, 900, 0.5)
    assert snapshot(config.output) == files
    with Store(tmp_path / "store.sqlite") as db:
        row = db.get_run(run_id)
    assert row.status == "completed"  # set right when the kill came before the store row
    assert run_irft(config, resume=True).finished_earlier
    with Store(tmp_path / "store.sqlite") as db:
        assert db.get_run(run_id) == row  # the second resume touches nothing
