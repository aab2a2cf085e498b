"""Exit status and advice after a run with errors: --fail-on-error, and no false "resume"."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rulebench.checks.loadtest import LoadTestItems, LoadTestTask
from rulebench.cli.app import app
from rulebench.core.errors import DataError
from rulebench.core.items import Item, Outcome
from rulebench.engine import catalog
from rulebench.engine.store.database import Store
from rulebench.engine.task import Session

runner = CliRunner()
ITEMS = 10


class BadRecordTask(LoadTestTask):
    """loadtest whose first `bad` items come from a malformed record: a DataError each."""

    def __init__(self, n: int = ITEMS, seed: int = 0, bad: int = 1) -> None:
        super().__init__(n, seed)
        self.bad = bad

    async def solve(self, item: Item, session: Session) -> Outcome:
        if int(str(item.metadata["index"])) < self.bad:
            raise DataError(f"records.jsonl: record {item.metadata['index']}: no field 'rule'")
        return await super().solve(item, session)


def failing_rules(tmp_path: Path, indexes: range) -> str:
    """A scripted/rules file that fails the loadtest items at `indexes` with a final error."""
    items = list(LoadTestItems(ITEMS, 0))
    rules = [
        {"contains": str(items[i].target), "error": "boom", "transient": False} for i in indexes
    ]
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules))
    return f"rules={path}"


def loadtest(
    tmp_path: Path, *args: str, model: tuple[str, ...] = ("-m", "scripted/echo")
) -> Result:
    store = str(tmp_path / "s.sqlite")
    command = ["run", "loadtest", "-n", str(ITEMS), *model, "--store", store, *args]
    return runner.invoke(app, command)


def stored_status(tmp_path: Path) -> str:
    with Store(tmp_path / "s.sqlite") as store:
        return store.list_runs()[0].status


@pytest.mark.parametrize(
    ("fail_on_error", "exit_code"), [(None, 1), ("0", 1), ("0.05", 1), ("0.1", 0), ("1", 0)]
)
def test_fail_on_error_tolerates_a_fraction_of_errors(
    tmp_path: Path, fail_on_error: str | None, exit_code: int
) -> None:
    model = ("-m", "scripted/rules", "-M", failing_rules(tmp_path, range(1)))
    extra = ["--fail-on-error", fail_on_error] if fail_on_error else []
    result = loadtest(tmp_path, *extra, model=model)
    assert result.exit_code == exit_code, result.output
    assert stored_status(tmp_path) == "failed"  # whatever the exit status
    within = "1 of 10 items (10.0%) ended in an error, within --fail-on-error"
    assert (within in result.stderr) == (exit_code == 0)


def test_a_completed_run_exits_0_and_says_nothing_of_errors(tmp_path: Path) -> None:
    result = loadtest(tmp_path, "--fail-on-error", "0.5")
    assert result.exit_code == 0 and "error" not in result.stderr.replace("0 errors", "")


def test_fail_on_error_applies_to_a_resume(tmp_path: Path) -> None:
    model = ("-m", "scripted/rules", "-M", failing_rules(tmp_path, range(2)))
    assert loadtest(tmp_path, model=model).exit_code == 1
    with Store(tmp_path / "s.sqlite") as store:
        run_id = store.list_runs()[0].id
    store_option = ["--store", str(tmp_path / "s.sqlite")]
    again = runner.invoke(app, ["run", "--resume", run_id, *store_option])
    assert again.exit_code == 1
    tolerated = runner.invoke(
        app, ["run", "--resume", run_id, "--fail-on-error", "0.2", *store_option]
    )
    assert tolerated.exit_code == 0, tolerated.output
    assert "2 of 10 items (20.0%)" in tolerated.stderr


def test_model_errors_suggest_resuming_once(tmp_path: Path) -> None:
    model = ("-m", "scripted/rules", "-M", failing_rules(tmp_path, range(1)))
    result = loadtest(tmp_path, model=model)
    assert "1 items ended in an error (resume the run to retry them):" in result.stderr
    assert "1 x boom" in result.stderr
    # The run's reason says the same with the same advice: printed once, not twice.
    assert "run failed" not in result.stderr


def test_data_errors_never_suggest_resuming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = catalog.TASKS["loadtest"]._replace(target=f"{__name__}:BadRecordTask")
    monkeypatch.setitem(catalog.TASKS, "loadtest", entry)
    result = loadtest(tmp_path)
    assert result.exit_code == 1
    assert "resuming fails the same way until they are fixed" in result.stderr
    assert "DataError: records.jsonl: record 0: no field 'rule'" in result.stderr
    assert "resume the run" not in result.stderr
    with Store(tmp_path / "s.sqlite") as store:
        run_id = store.list_runs()[0].id
    shown = runner.invoke(app, ["runs", "show", run_id, "--store", str(tmp_path / "s.sqlite")])
    assert "resuming fails the same way" in shown.stderr
    assert "Resume with" not in shown.stderr and "resume the run" not in shown.stderr


def test_mixed_errors_say_which_a_resume_can_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = catalog.TASKS["loadtest"]._replace(target=f"{__name__}:BadRecordTask")
    monkeypatch.setitem(catalog.TASKS, "loadtest", entry)
    # Item 0 has the bad record, item 1 a model error.
    model = ("-m", "scripted/rules", "-M", failing_rules(tmp_path, range(2)))
    result = loadtest(tmp_path, model=model)
    assert (
        "2 items ended in an error (resume the run to retry them; the 1 settings or data "
        "errors fail again until fixed)"
    ) in result.stderr
    with Store(tmp_path / "s.sqlite") as store:
        run_id = store.list_runs()[0].id
    shown = runner.invoke(app, ["runs", "show", run_id, "--store", str(tmp_path / "s.sqlite")])
    assert "Resume with: rulebench run --resume" in shown.stderr
