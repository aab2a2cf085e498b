"""`rulebench run X ...`, `rulebench.run("X", ...)` and an experiment file store the same spec.

Defaults live once, in the task's typed config: the CLI passes what the user gave and the
library fills the rest, so the stored run (task config, generation settings, concurrency,
limit) is identical whichever entry point started it, with defaults and with a setting given.
"""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Unpack

import pytest
from pydantic import BaseModel, JsonValue
from typer.testing import CliRunner

import rulebench
from rulebench.api import RunOptions
from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.inferential.run_options import InferentialOptions
from rulebench.scenarios.run_options import NOT_COMPARABLE, ScenarioOptions

from tests.stored_json import json_at, json_object

runner = CliRunner()
MODEL = "scripted/echo"


def via_cli(store: Path, *args: str) -> dict[str, JsonValue]:
    """The stored spec of the run the command made."""
    before = _run_ids(store)
    result = runner.invoke(app, [*args, "-m", MODEL, "--store", str(store), "--json"])
    assert result.exit_code in (0, 1), (result.output, result.exception)  # 1: items failed
    with Store(store, readonly=True) as db:
        [run] = [run for run in db.list_runs() if run.id not in before]
        return run.config


def via_api(
    store: Path,
    task: str,
    config: BaseModel | Mapping[str, JsonValue] | None = None,
    **options: Unpack[RunOptions],
) -> dict[str, JsonValue]:
    """The stored spec of the run `rulebench.run` made."""
    report = rulebench.run(task, MODEL, config=config, store=store, **options)
    with Store(store, readonly=True) as db:
        return db.get_run(report.run.id).config


def via_experiment(store: Path, task: str, options: str = "{}", *settings: str) -> JsonValue:
    """The stored spec of the run an experiment file with this one task made.

    Args:
        options: the task's options as a TOML inline table.
        settings: run settings of the [[tasks]] entry, as TOML lines ("limit = 7").
    """
    before = _run_ids(store)
    path = store.parent / f"experiment-{len(before)}.toml"
    lines = ["[[models]]", f'spec = "{MODEL}"', "[[tasks]]", f'task = "{task}"']
    path.write_text("\n".join([*lines, f"options = {options}", *settings, ""]))
    command = ["experiment", str(path), "--store", str(store), "-o", str(store.parent / "exp")]
    result = runner.invoke(app, [*command, "--json"])
    assert result.exit_code in (0, 1), (result.output, result.exception)
    with Store(store, readonly=True) as db:
        [run] = [run for run in db.list_runs() if run.id not in before]
        return run.config


def _run_ids(store: Path) -> set[str]:
    if not store.exists():
        return set()
    with Store(store, readonly=True) as db:
        return {run.id for run in db.list_runs()}


def test_smoke(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert via_cli(store, "run", "smoke") == via_api(store, "smoke")
    given = via_cli(store, "run", "smoke", "--max-tokens", "9", "-c", "2")
    assert given == via_api(store, "smoke", max_tokens=9, concurrency=2)
    assert json_at(via_api(store, "smoke"), "concurrency") == 4  # SmokeConfig's


def test_loadtest_counts_items_with_limit(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    default = via_cli(store, "run", "loadtest", "-n", "1000")
    assert default == via_api(store, "loadtest", limit=1000)
    assert json_at(default, "task_config", "n") == 1000
    assert json_at(default, "concurrency") == 64
    given = via_cli(store, "run", "loadtest", "-n", "7", "--seed", "3")
    assert given == via_api(store, "loadtest", {"seed": 3}, limit=7, sampling_seed=3)
    assert json_at(given, "task_config", "n") == 7


def test_loadtest_default_size(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    cli = via_cli(store, "run", "loadtest", "--no-cache", "-c", "200")
    assert cli == via_api(store, "loadtest", concurrency=200, use_cache=False)
    assert json_at(cli, "task_config", "n") == 1000


def test_inferential(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    cli = via_cli(store, "run", "inferential", "-t", "kinship", "--per-group", "3")
    assert cli == via_api(store, "inferential", {"tasks": ["kinship"], "per_group": 3})
    given = via_cli(
        store, "run", "inferential", "-t", "stringgame", "--per-group", "2", "--cot", "on"
    )
    api = via_api(
        store,
        "inferential",
        {"tasks": ["stringgame"], "per_group": 2, "grid": {"cot": [True]}},
    )
    assert given == api and json_at(given, "generate", "max_tokens") == 320


def test_inferential_from_the_command_lines_options(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    cli = via_cli(
        store,
        *("run", "inferential", "-t", "kinship", "--per-group", "2", "-q", "golden", "-q", "all"),
        *("--form", "fol", "--cot", "both", "--shots", "1", "--layout", "shared", "--cite-rule"),
        *("--repeats", "2", "--seed", "4"),
    )
    options = InferentialOptions(
        tasks=("kinship",),
        per_group=2,
        quantities=("golden", "all"),
        forms=("fol",),
        cot="both",
        shots=1,
        layout="shared",
        cite_rule=True,
        repeats=2,
        seed=4,
    )
    assert cli == via_api(store, "inferential", options, sampling_seed=4)
    assert json_at(cli, "task_config", "grid", "cot") == [False, True]
    paper = via_cli(store, "run", "inferential", "-t", "kinship", "--grid", "paper", "-n", "3")
    options = InferentialOptions(tasks=("kinship",), grid="paper")
    assert paper == via_api(store, "inferential", options, limit=3)
    assert json_at(paper, "generate", "max_tokens") == 500  # the paper's decoding


def test_scenarios(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    cli = via_cli(store, "run", "scenarios", "--scenario", "Encryption")
    assert cli == via_api(store, "scenarios", {"scenarios": ["Encryption"]})
    assert json_at(cli, "task_config", "per_group") == 5
    assert json_at(cli, "generate", "max_tokens") == 128
    given = via_cli(
        store, "run", "scenarios", "--scenario", "Encryption", "--full", "--mode", "strict"
    )
    api = via_api(
        store,
        "scenarios",
        {"scenarios": ["Encryption"], "per_group": None, "protocol": {"mode": "strict"}},
    )
    assert given == api
    assert json_at(given, "generate", "max_tokens") == 512


def test_scenarios_from_the_command_lines_options(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = tmp_path / "s.sqlite"
    published = via_cli(store, "run", "scenarios", "--preset", "published-v3", "--full", "-n", "3")
    options = ScenarioOptions(preset="published-v3", full=True)
    assert published == via_api(store, "scenarios", options, limit=3)
    assert NOT_COMPARABLE in caplog.text  # the API says what the CLI prints
    assert json_at(published, "generate", "max_tokens") == 100  # the preset's limit
    assert json_at(published, "task_config", "protocol", "placement") == "system"
    official = via_cli(store, "run", "scenarios", "-s", "basic", "--per-group", "25", "-n", "3")
    options = ScenarioOptions(suites=("basic",), per_group=25)
    assert official == via_api(store, "scenarios", options, limit=3)
    assert json_at(official, "generate", "max_tokens") == 512  # every case: the official size


def test_judge(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    # On Questions_confirm cases "Correct" passes and "No." fails: both kinds to judge.
    sources = [
        rulebench.run(
            "scenarios",
            "scripted/fixed",
            config={"suites": ["benign"], "per_group": 4, "scenarios": ["Questions"]},
            store=store,
            model_args={"reply": reply},
        ).run.id
        for reply in ("Correct", "No.")
    ]
    runs = ["--from-run", sources[0], "--from-run", sources[1]]
    cli = via_cli(store, "run", "judge", *runs)
    assert cli == via_api(store, "judge", {"runs": list(sources), "store": str(store)})
    given = via_cli(store, "run", "judge", *runs, "--per-group", "1")
    api = via_api(store, "judge", {"runs": list(sources), "store": str(store), "per_group": 1})
    assert given == api and json_at(given, "task_config", "per_group") == 1


@pytest.mark.parametrize(
    ("task", "config", "old"),
    [
        ("inferential", {"tasks": ["kinship"], "per_group": 2}, "n"),
        ("scenarios", {"scenarios": ["Encryption"], "per_group": 2}, "per_behavior"),
    ],
)
def test_a_run_stored_under_an_old_field_name_resumes(
    tmp_path: Path, task: str, config: dict[str, JsonValue], old: str
) -> None:
    store = tmp_path / "s.sqlite"
    report = rulebench.run(task, MODEL, config=config, store=store)
    with Store(store) as db:  # as a run stored before the rename, stopped halfway
        stored = db.get_run(report.run.id).config
        fields = dict(json_object(stored["task_config"]))
        fields[old] = fields.pop("per_group")
        fields.pop("cap_files", None)  # not there before the rename either
        spec = json.dumps({**stored, "task_config": fields})
        db._db.execute("UPDATE runs SET config = ?, status = 'interrupted'", (spec,))
        db._db.execute("DELETE FROM results WHERE rowid % 2 = 0")
    with pytest.warns(FutureWarning, match=f"'{old}' is now 'per_group'"):
        resumed = rulebench.resume(report.run.id, store=store)
    assert resumed.run.status == "completed" and 0 < resumed.completed_now < report.completed_now
    with Store(store, readonly=True) as db:
        assert db.count_results(report.run.id)["ok"] == report.completed_now


def test_the_judge_reads_its_old_field_name() -> None:
    from rulebench.scenarios.judge import JudgeConfig

    with pytest.warns(FutureWarning, match="'per_rule' is now 'per_group'"):
        config = JudgeConfig.model_validate({"runs": ["r"], "store": "s", "per_rule": 3})
    assert config.per_group == 3


def test_an_experiment_file_stores_the_spec_the_cli_does(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert via_experiment(store, "smoke") == via_cli(store, "run", "smoke")
    given = via_experiment(store, "smoke", "{}", "max_tokens = 9", "concurrency = 2")
    assert given == via_cli(store, "run", "smoke", "--max-tokens", "9", "-c", "2")
    loadtest = via_experiment(store, "loadtest", "{}", "limit = 7", "seed = 3")
    assert loadtest == via_cli(store, "run", "loadtest", "-n", "7", "--seed", "3")
    assert json_at(loadtest, "task_config", "n") == 7
    inferential = via_experiment(
        store, "inferential", '{ tasks = ["kinship"], per_group = 3 }', "seed = 5"
    )
    cli = via_cli(store, "run", "inferential", "-t", "kinship", "--per-group", "3", "--seed", "5")
    assert inferential == cli and json_at(cli, "task_config", "grid", "seed") == 5
    scenarios = via_experiment(store, "scenarios", '{ scenarios = ["Encryption"] }')
    assert scenarios == via_cli(store, "run", "scenarios", "--scenario", "Encryption")
    strict = via_experiment(
        store, "scenarios", '{ scenarios = ["Encryption"], protocol = { mode = "strict" } }'
    )
    cli = via_cli(store, "run", "scenarios", "--scenario", "Encryption", "--mode", "strict")
    assert strict == cli and json_at(cli, "task_config", "per_group") == 5
