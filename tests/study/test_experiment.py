"""Experiment files: models x tasks with shared settings; errors name the line and field."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store
from rulebench.study.batch import BatchRow, PlannedRun
from rulebench.study.batch_report import markdown_table, table_columns
from rulebench.study.experiment import load_experiment

from tests.stored_json import json_at

runner = CliRunner()

TOML = """\
[experiment]
name = "rules-vs-size"

[defaults]
limit = 4
seed = 3
model_args = { delay_s = 0 }

[[models]]
spec = "scripted/echo"

[[models]]
spec = "scripted/fixed"
label = "fixed-ok"
base_url = ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]
model_args = { reply = "OK", system_role = false }

[[tasks]]
task = "inferential"
options = { tasks = ["kinship"], per_group = 3 }

[[tasks]]
task = "scenarios"
limit = 2
max_tokens = 20
options = { per_group = 1, scenarios = ["Encryption"] }
"""

YAML = """\
experiment:
  name: rules-vs-size
defaults:
  limit: 4
  seed: 3
  model_args: {delay_s: 0}
models:
  - spec: scripted/echo
  - spec: scripted/fixed
    label: fixed-ok
    base_url: "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1"
    model_args: {reply: OK, system_role: false}
tasks:
  - task: inferential
    options: {tasks: [kinship], per_group: 3}
  - task: scenarios
    limit: 2
    max_tokens: 20
    options: {per_group: 1, scenarios: [Encryption]}
"""


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_every_model_runs_every_task_with_merged_settings(tmp_path: Path) -> None:
    loaded = load_experiment(write(tmp_path, TOML))
    assert loaded.name == "rules-vs-size"
    assert [(run.model, run.task) for run in loaded.runs] == [
        ("scripted/echo", "inferential"),
        ("scripted/echo", "scenarios"),
        ("fixed-ok", "inferential"),
        ("fixed-ok", "scenarios"),
    ]
    specs = [run.spec for run in loaded.runs]
    assert all(spec is not None for spec in specs)
    echo_rules, echo_scenarios, fixed_rules, _ = [spec for spec in specs if spec]
    assert echo_rules.limit == 4 and echo_scenarios.limit == 2  # the task's limit wins
    assert echo_scenarios.generate.max_tokens == 20
    assert echo_rules.generate.max_tokens == 48  # the task's own default
    assert echo_rules.generate.seed == 3  # the seed is also the sampling seed, as --seed
    assert echo_rules.task_config["seed"] == 3
    assert json_at(echo_rules.task_config, "grid", "seed") == 3
    assert echo_rules.model_args == {"delay_s": "0"}
    assert fixed_rules.model_args == {"delay_s": "0", "reply": "OK", "system_role": "false"}
    assert fixed_rules.base_url == "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1"


def test_yaml_and_toml_plan_the_same_runs(tmp_path: Path) -> None:
    from_toml = load_experiment(write(tmp_path, TOML))
    from_yaml = load_experiment(write(tmp_path, YAML, "exp.yaml"))
    assert from_yaml.runs == from_toml.runs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            TOML.replace("limit = 4", "limit = -4"),
            "exp.toml:5: [defaults]: limit: Input should be greater than or equal to 0",
        ),
        (
            TOML.replace('label = "fixed-ok"', 'label = "fixed-ok"\ncolour = "red"'),
            "exp.toml:15: [[models]] #2: colour: Extra inputs are not permitted",
        ),
        (
            TOML.replace("per_group = 3", "per_group = 0"),
            "exp.toml:20: [[tasks]] #1 (inferential): options.per_group: Input should be greater",
        ),
        (
            TOML.replace("per_group = 1", "per_grup = 1"),
            "exp.toml:26: [[tasks]] #2 (scenarios): options.per_grup: Extra inputs",
        ),
        (
            TOML.replace('task = "scenarios"', 'task = "scenario"'),
            "exp.toml:23: [[tasks]] #2: task: unknown task 'scenario'. Did you mean 'scenarios'?",
        ),
        (
            TOML.replace('reply = "OK"', "reply = [1]"),
            "exp.toml:16: [[models]] #2: model_args.reply: Value error, a backend setting is",
        ),
        (
            TOML.replace('label = "fixed-ok"', 'label = "scripted/echo"'),
            "exp.toml:12: [[models]] #2: 'scripted/echo' is already in the file",
        ),
        (TOML.replace("[[tasks]]", "[[task]]"), "[task]: Extra inputs are not permitted"),
        (TOML.replace("[defaults]", "[defaults"), "exp.toml: not valid TOML"),
    ],
)
def test_a_mistake_names_the_file_line_table_and_field(
    tmp_path: Path, text: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_experiment(write(tmp_path, text))
    assert expected in str(caught.value)


def test_a_yaml_mistake_names_its_line(tmp_path: Path) -> None:
    bad = YAML.replace(
        "{tasks: [kinship], per_group: 3}", "\n      tasks: [kinship]\n      per_group: 0"
    )
    assert bad.splitlines()[16] == "      per_group: 0"
    with pytest.raises(
        ConfigError, match=r"exp\.yaml:17: tasks #1 \(inferential\): options\.per_group"
    ):
        load_experiment(write(tmp_path, bad, "exp.yaml"))


def test_an_unknown_model_provider_is_planned_as_a_failing_row(tmp_path: Path) -> None:
    loaded = load_experiment(write(tmp_path, TOML.replace("scripted/echo", "nosuch/echo")))
    [first, second, *_] = loaded.runs
    assert first.spec is None and second.spec is None
    assert first.problem is not None and "unknown model provider 'nosuch'" in first.problem
    assert all(run.spec is not None for run in loaded.runs[2:])


def test_the_judge_reads_its_runs_from_the_batch_store(tmp_path: Path) -> None:
    judge = TOML.split("[[tasks]]")[0] + '[[tasks]]\ntask = "judge"\noptions = { runs = ["x"] }\n'
    loaded = load_experiment(write(tmp_path, judge), store=tmp_path / "given.sqlite")
    spec = loaded.runs[0].spec
    assert spec is not None and spec.task_config["store"] == str(tmp_path / "given.sqlite")


def test_experiment_command_runs_the_batch_then_reuses_it(tmp_path: Path) -> None:
    path = write(tmp_path, TOML)
    store, output = tmp_path / "s.sqlite", tmp_path / "out"
    args = ["experiment", str(path), "--store", str(store), "-o", str(output)]
    plan = runner.invoke(app, [*args, "--dry-run"])
    assert plan.exit_code == 0, plan.output
    assert "1. scripted/echo on inferential: start" in plan.stdout
    assert not store.exists()

    first = runner.invoke(app, [*args, "--json"])
    assert first.exit_code == 0, first.output
    rows = json.loads(first.stdout)["runs"]
    assert [row["how"] for row in rows] == ["new"] * 4
    assert "run 4 of 4: fixed-ok on scenarios" in first.stderr
    # Two models on each task: each task's comparison report is written.
    report = (output / "inferential" / "report.md").read_text()
    assert "scripted/echo" in report and "scripted/fixed" in report
    assert (output / "scenarios" / "report.md").is_file()
    summary = (output / "summary.md").read_text()
    assert all(row["run_id"] in summary for row in rows)

    again = runner.invoke(app, [*args, "--json"])
    assert [row["how"] for row in json.loads(again.stdout)["runs"]] == ["reused"] * 4
    replan = runner.invoke(app, [*args, "--dry-run"])
    assert f"completed earlier, not run again (run {rows[0]['run_id']})" in replan.stdout
    with Store(store) as db:
        assert len(db.list_runs()) == 4


def test_the_experiment_store_and_output_come_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = TOML.replace('name = "rules-vs-size"', 'name = "rules vs size"\nstore = "mine.sqlite"')
    result = runner.invoke(app, ["experiment", str(write(tmp_path, text))])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mine.sqlite").is_file()
    assert (tmp_path / "rulebench-experiment" / "rules-vs-size" / "summary.md").is_file()


def test_the_table_leaves_out_a_rate_no_run_has() -> None:
    row = BatchRow(model="m", task="t", run_id=None, status="not started", how="not started")
    headers = [column.header for column in table_columns([row])]
    assert headers == ["model", "task", "run"]
    assert markdown_table([row]).splitlines()[-1] == "| m | t | not started |"
    assert PlannedRun(model="m", task="t", spec=None).problem is None


def test_the_example_experiment_file_plans_four_runs() -> None:
    example = Path(__file__).parents[2] / "examples" / "experiment.toml"
    loaded = load_experiment(example)
    assert loaded.name == "embedded-vs-echo"
    assert [(run.model, run.task) for run in loaded.runs] == [
        ("llamacpp/SmolLM2-135M-Instruct", "inferential"),
        ("llamacpp/SmolLM2-135M-Instruct", "scenarios"),
        ("scripted/echo", "inferential"),
        ("scripted/echo", "scenarios"),
    ]


def test_all_in_a_toml_file_asks_for_the_official_sizes(tmp_path: Path) -> None:
    # TOML has no null: "all" is how a file says what --full says on the command line.
    text = TOML.replace('per_group = 1, scenarios = ["Encryption"]', 'per_group = "all"')
    loaded = load_experiment(write(tmp_path, text))
    scenario_specs = [run.spec for run in loaded.runs if run.task == "scenarios" and run.spec]
    assert scenario_specs
    assert all(spec.task_config["per_group"] is None for spec in scenario_specs)
    assert all(spec.generate.max_tokens == 20 for spec in scenario_specs)


REASONING_TOML = """\
[experiment]
name = "thinking-on-off"

[defaults]
limit = 2
reasoning = { effort = "low" }

[[models]]
spec = "scripted/echo"
label = "thinking"
reasoning = { thinking = true, tags = { start = "[T]", end = "[/T]" } }

[[models]]
spec = "scripted/echo"
label = "default"

[[tasks]]
task = "smoke"

[[tasks]]
task = "inferential"
reasoning = { thinking = false }
options = { tasks = ["kinship"], per_group = 1 }
"""


def test_reasoning_options_merge_model_over_task_over_defaults(tmp_path: Path) -> None:
    loaded = load_experiment(write(tmp_path, REASONING_TOML))
    found = {
        (run.model, run.task): run.spec.generate.reasoning
        for run in loaded.runs
        if run.spec is not None
    }
    assert found[("thinking", "smoke")].thinking is True
    assert found[("thinking", "smoke")].tags.start == "[T]"
    assert found[("thinking", "inferential")].thinking is True  # the model's wins
    assert found[("default", "smoke")].effort == "low"
    assert found[("default", "inferential")].thinking is False
    assert found[("default", "inferential")].effort is None  # a table replaces, never merges


def test_a_bad_reasoning_option_names_its_field(tmp_path: Path) -> None:
    text = REASONING_TOML.replace('effort = "low"', 'effort = "extreme"')
    with pytest.raises(ConfigError, match="effort"):
        load_experiment(write(tmp_path, text))
