"""`rulebench train ...` from the command line: output, one-line errors, no heavy imports."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.train.data import read_manifest, write_dataset
from rulebench.train.examples import DataConfig

from tests.command import assert_one_line_error, rulebench

runner = CliRunner()


def test_train_data_writes_a_folder_and_prints_counts(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    args = ["train", "data", "-o", str(folder), "--limit", "12", "--per-group", "4"]
    result = runner.invoke(app, [*args, "--form", "fol", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert "train" in result.stdout and "12 examples" in result.stdout
    manifest = read_manifest(folder)
    assert manifest.config is not None
    assert manifest.config.form == "fol" and manifest.config.seed == 5
    again = runner.invoke(app, [*args, "--overwrite", "--json"])
    assert again.exit_code == 0, again.output
    shown = json.loads(again.stdout)
    assert shown["counts"] == {"train": 12, "test": 4, "heldout": 4}
    assert shown["folder"] == str(folder)


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--limit", "0"], "train data: limit: Input should be greater than or equal to 1"),
        (["--form", "prolog"], "train data: form: Input should be 'nl' or 'fol'"),
        (["--heldout-fraction", "0.95"], "heldout_fraction: Input should be less than or equal"),
    ],
)
def test_bad_data_options_are_one_line(tmp_path: Path, options: list[str], message: str) -> None:
    result = rulebench("train", "data", "-o", str(tmp_path / "d"), *options)
    assert_one_line_error(result, message)


@pytest.mark.subprocess
def test_an_occupied_folder_is_refused_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("x")
    result = rulebench("train", "data", "-o", str(tmp_path))
    assert_one_line_error(result, "is not empty: pick a new folder or pass --overwrite")
    assert "building examples" not in result.stderr


@pytest.mark.subprocess
def test_train_help_loads_no_training_library() -> None:
    code = (
        "import sys; from rulebench.cli.app import main\n"
        "for args in (['--help'], ['train', '--help'], ['train', 'data', '--help']):\n"
        "    sys.argv = ['rulebench', *args]\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "heavy = {'torch', 'transformers', 'trl', 'peft', 'datasets', 'pyarrow'}\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & heavy))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "LOADED []" in output
    assert "irft" in output or "data" in output


def test_training_bar_follows_steps_and_loss() -> None:
    from rulebench.cli.train_irft import _TrainingBar

    bar = _TrainingBar()
    with bar:
        bar.begin(total_steps=10, done_steps=4)
        bar.update(5, None)
        bar.update(6, 0.25)
    [task] = bar._progress.tasks
    assert (task.total, task.completed, task.fields["loss"]) == (10, 6, "0.2500")
    assert task.description == "training"


def test_runs_show_prints_a_tuning_run_s_record_and_export_refuses_it(tmp_path: Path) -> None:
    from rulebench.engine.store.database import Store

    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("irft", "hf/SmolLM2-135M-Instruct", {"rank": 16})
        notes = {"steps": 3, "tokens_per_s": 97.5, "eval_loss_before": 1.4, "eval_loss_after": 0.9}
        db.finish_run(run.id, "completed", notes | {"loss_curve": [[1, 1.2], [3, 0.8]]})
    shown = runner.invoke(app, ["runs", "show", run.id, "--store", str(store)])
    assert shown.exit_code == 0, shown.output
    assert "tokens/s           97.5" in shown.stdout and "eval loss after    0.9" in shown.stdout
    assert "last logged loss   0.8 (step 3)" in shown.stdout
    exported = runner.invoke(
        app, ["runs", "export", run.id, "--store", str(store), "-o", str(tmp_path / "x.jsonl")]
    )
    assert "IRFT tuning run: it has no item results" in str(exported.exception)
    assert not (tmp_path / "x.jsonl").exists()


def test_the_command_writes_the_config_the_python_api_builds(tmp_path: Path) -> None:
    folder = tmp_path / "cli"
    result = runner.invoke(app, ["train", "data", "-o", str(folder), "-n", "12", "--seed", "4"])
    assert result.exit_code == 0, result.output
    # Options not given keep DataConfig's defaults, as in a Python caller's config.
    config = DataConfig(limit=12, seed=4)
    assert read_manifest(folder).config == config
    assert write_dataset(config, tmp_path / "api").data_hash == read_manifest(folder).data_hash


def test_data_help_shows_the_config_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    shown = runner.invoke(app, ["train", "data", "--help"]).stdout
    rows = [(line.replace("│", " ").replace("*", " ").split(), line) for line in shown.splitlines()]
    lines = {words[0]: line for words, line in rows if words and words[0].startswith("-")}
    defaults = DataConfig()
    assert f"[default: {defaults.limit}]" in lines["--limit"]
    assert f"[default: {defaults.per_group}]" in lines["--per-group"]
    assert not {"--size", "--test-size", "--dataset"} & lines.keys()


def test_old_data_spellings_warn_and_still_work(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    result = runner.invoke(
        app, ["train", "data", "-o", str(folder), "--size", "6", "--test-size", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "--size is now --limit" in result.stderr
    assert "--test-size is now --per-group" in result.stderr
    manifest = read_manifest(folder)
    assert manifest.config == DataConfig(limit=6, per_group=2)


def test_a_folder_written_before_the_rename_still_reads(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    write_dataset(DataConfig(limit=6, per_group=2), folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    config = manifest["config"]
    config["size"], config["test_size"] = config.pop("limit"), config.pop("per_group")
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.warns(FutureWarning) as caught:
        assert read_manifest(folder).config == DataConfig(limit=6, per_group=2)
    said = {str(warning.message).split(";")[0] for warning in caught}
    assert said == {
        "train data field 'size' is now 'limit'",
        "train data field 'test_size' is now 'per_group'",
    }
