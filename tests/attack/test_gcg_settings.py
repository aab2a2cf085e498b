"""GCG settings have one source: the presets in GcgConfig, merged by `gcg_settings` for the CLI
and a Python caller alike; an attack's files are written by the library.

No model here: the CLI is stopped by a model without gradients right after it prints the
settings, and the files are written from steps stored by hand.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.attack.attack_run import AttackConfig, AttackResult, HeldOut, attack_config
from rulebench.attack.gcg.config import PRESETS, GcgConfig
from rulebench.attack.gcg.search import GcgState, ScoredSuffix
from rulebench.attack.gcg.settings import gcg_settings
from rulebench.attack.stored import step_result
from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.core.run_kinds import GCG_TASK
from rulebench.engine.store.database import Store
from rulebench.study.gcg_outputs import attack_folder, write_attack_outputs

runner = CliRunner()


def test_the_default_config_is_the_quick_preset_and_the_paper_preset_is_named() -> None:
    assert GcgConfig() == GcgConfig.preset("quick") == gcg_settings()
    paper = GcgConfig.preset("paper")
    assert (paper.num_steps, paper.search_width, paper.topk) == (500, 512, 256)
    assert gcg_settings("paper") == paper
    # Everything else is the defaults' own.
    assert paper.model_copy(update={k: getattr(GcgConfig(), k) for k in PRESETS["paper"]}) == (
        GcgConfig()
    )


def test_file_options_override_the_preset_and_given_options_override_the_file(
    tmp_path: Path,
) -> None:
    file = tmp_path / "gcg.json"
    file.write_text('{"num_steps": 3, "topk": 8, "optim_str_init": "a b c"}', encoding="utf-8")
    config = gcg_settings("paper", file, num_steps=2, seed=None)
    assert (config.num_steps, config.topk, config.search_width) == (2, 8, 512)
    assert config.optim_str_init == "a b c" and config.seed == 0
    assert gcg_settings("quick", file, suffix_length=2).optim_str_init == "x x"
    assert gcg_settings(suffix_length=2, optim_str_init="y").optim_str_init == "y"


def test_an_unknown_gcg_option_is_one_error_naming_it() -> None:
    with pytest.raises(ConfigError, match="search_wdth"):
        gcg_settings(search_wdth=8)


def test_api_defaults_are_the_config_defaults() -> None:
    config = attack_config(None, "Encryption", None)
    assert config == AttackConfig(scenario="Encryption", behavior=config.behavior)
    assert config.gcg == GcgConfig()


def settings_line(tmp_path: Path, *args: str) -> str:
    """What `attack gcg` prints before loading the model (one without gradients stops it)."""
    command = ["attack", "gcg", "--scenario", "Encryption", "-m", "openai/gpt-4o", *args]
    result = runner.invoke(app, [*command, "--store", str(tmp_path / "s.sqlite")])
    assert isinstance(result.exception, ConfigError), result.output
    return " ".join(result.stderr.split())


def test_the_command_uses_the_library_presets(tmp_path: Path) -> None:
    quick, paper = GcgConfig(), GcgConfig.preset("paper")
    for args, gcg in (((), quick), (("--full",), paper)):
        line = settings_line(tmp_path, *args)
        assert f"{gcg.num_steps} steps, {gcg.search_width} candidates from the top {gcg.topk}" in (
            line
        ), line
    line = settings_line(tmp_path, "--full", "--steps", "3", "--seed", "4")
    assert f"3 steps, {paper.search_width} candidates" in line and "seed 4" in line


def test_help_shows_the_config_defaults_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    shown = runner.invoke(app, ["attack", "gcg", "--help"]).stdout
    quick = GcgConfig()
    for option, value in (("--steps", quick.num_steps), ("--search-width", quick.search_width)):
        line = next(line for line in shown.splitlines() if line.startswith(f"│ {option} "))
        assert f"[default: {value}]" in line and line.count(str(value)) == 1, line
    line = next(line for line in shown.splitlines() if line.startswith("│ --heldout "))
    assert f"[default: {AttackConfig.model_fields['heldout'].default}]" in line


def stored_attack(store: Store) -> AttackResult:
    """An attack of two steps written to the store as `run_attack` writes one."""
    config = attack_config(None, "Encryption", None)
    run = store.create_run(GCG_TASK, config.model, config.model_dump(mode="json"))
    writer = store.writer()
    states = [
        GcgState(step=step, suffix_ids=(step,), suffix=f"s{step}", loss=2.0 - step,
                 best=ScoredSuffix(loss=2.0 - step, ids=(step,)))
        for step in range(3)
    ]  # fmt: skip
    for state in states:
        writer.put_result(run.id, step_result(state, 1, 0.1))
    writer.close()
    store.finish_run(run.id, "completed", {})
    held = HeldOut(suffix="s", loss=1.0, reached=0, instances=1)
    return AttackResult(
        run_id=run.id, config=config, state=states[-1], initial=held, final=held,
        seconds_per_step=0.1,
    )  # fmt: skip


def test_the_library_writes_the_suffix_the_record_and_the_loss_curve(tmp_path: Path) -> None:
    with Store(tmp_path / "store.sqlite") as store:
        result = stored_attack(store)
        written = write_attack_outputs(result, store)
        folder = attack_folder(store, result.run_id)
    assert folder == tmp_path / f"gcg-{result.run_id}"
    assert (folder / "suffix.txt").read_text(encoding="utf-8") == "s2\n"
    record = json.loads((folder / "attack.json").read_text(encoding="utf-8"))
    assert record["run_id"] == result.run_id and record["state"]["step"] == 2
    assert folder / "suffix.txt" in written and folder / "attack.json" in written
    assert any(path.suffix == ".png" and path.stat().st_size > 0 for path in written)
