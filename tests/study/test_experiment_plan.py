"""What `rulebench experiment` says before it runs: its line, its folder and its plan."""

from pathlib import Path

from rulebench.core.shards import Shard
from rulebench.study import experiment_plan as plan
from rulebench.study.experiment import load_experiment

from tests.study.test_experiment import TOML, write


def test_the_folder_is_the_option_then_the_file_then_one_per_shard(tmp_path: Path) -> None:
    loaded = load_experiment(write(tmp_path, TOML), tmp_path / "s.sqlite")
    shard = Shard(index=2, count=4)

    assert plan.output_folder(loaded, tmp_path / "given", shard) == tmp_path / "given"
    assert plan.output_folder(loaded, None, None) == Path("rulebench-experiment/rules-vs-size")
    assert plan.output_folder(loaded, None, shard) == Path(
        "rulebench-experiment/rules-vs-size-shard-2-of-4"
    )
    named = loaded.model_copy(update={"output": tmp_path / "from-file"})
    assert plan.output_folder(named, None, shard) == tmp_path / "from-file"


def test_the_line_counts_models_tasks_and_runs(tmp_path: Path) -> None:
    loaded = load_experiment(write(tmp_path, TOML), None)

    line = plan.experiment_line(loaded, Path("out"), None)

    assert line == (
        "experiment rules-vs-size: 2 model(s) x 2 task(s) = 4 runs; store default; output out"
    )
    assert (
        plan.batch_title(loaded, Shard(index=1, count=2)) == "experiment rules-vs-size, shard 1/2"
    )


def test_the_plan_of_a_store_not_made_yet_starts_every_run(tmp_path: Path) -> None:
    loaded = load_experiment(write(tmp_path, TOML), None)
    store = tmp_path / "missing.sqlite"

    lines, blocked = plan.plan_lines(loaded.runs, store)

    assert blocked == 0
    assert [line.split(": ", 1)[1] for line in lines] == ["start"] * 4
    assert lines[0].startswith("1. scripted/echo on inferential")
    assert not store.exists()  # the plan reads, never creates
