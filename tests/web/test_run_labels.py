"""Run labels in the runs list: they lead with what tells the listed runs apart."""

from pydantic import JsonValue

from rulebench.engine.store.records import RunRecord
from rulebench.web.explorer.config_diff import diff_rows, run_labels


def grid_run(run_id: str, **changed: JsonValue) -> RunRecord:
    """An inferential `--grid paper` run's record; `changed` replaces top-level settings."""
    config: dict[str, JsonValue] = {
        "task": "inferential",
        "task_config": {"tasks": ["kinship"], "data_root": None, "design": "paper"},
        "model": "scripted/echo",
        "model_args": {},
        "generate": {"max_tokens": 500, "temperature": 0.0},
        "concurrency": 8,
        "limit": None,
    }
    return RunRecord(
        id=run_id,
        task="inferential",
        model="scripted/echo",
        config=config | changed,
        version="0",
        started_at="2020-01-01T00:00:00+00:00",
        ended_at=None,
        status="completed",
        pid=None,
        notes={},
    )


def test_runs_that_differ_only_in_their_tasks_lead_with_the_tasks() -> None:
    runs = [
        grid_run("kinship"),
        grid_run(
            "stringgame",
            task_config={"tasks": ["stringgame"], "data_root": None, "design": "paper"},
        ),
        # A third run changes five settings that sort before the tasks, its tasks alike:
        # a label naming settings by name would hide the tasks behind "+2 more".
        grid_run(
            "other",
            concurrency=2,
            generate={"max_tokens": 64, "temperature": 0.7},
            limit=10,
            model_args={"reply": "x"},
            task_config={"tasks": ["kinship"], "data_root": "/data", "design": "paper"},
        ),
    ]
    labels = run_labels(runs)
    assert labels["kinship"] != labels["stringgame"]
    assert labels["kinship"].startswith('scripted/echo · task_config.tasks=["kinship"]')
    assert labels["stringgame"].startswith('scripted/echo · task_config.tasks=["stringgame"]')
    assert len(set(labels.values())) == 3


def test_an_empty_block_is_the_same_as_one_left_out() -> None:
    unset = grid_run("unset")
    del unset.config["model_args"]
    empty = grid_run("empty")
    labels = run_labels([unset, empty])
    assert labels["unset"] == labels["empty"] and "model_args" not in labels["unset"]
    assert not any(row.differs for row in diff_rows(unset, empty))
    assert any(row.differs for row in diff_rows(empty, grid_run("set", model_args={"a": 1})))


def test_a_long_value_is_cut_in_the_label() -> None:
    runs = [grid_run("short"), grid_run("long", model_args={"reply": "x" * 300})]
    label = run_labels(runs)["long"]
    assert 'model_args.reply="xxx' in label and "x" * 60 not in label and "…" in label
