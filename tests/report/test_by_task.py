"""The report a set of runs gets follows their task, through `rulebench.build_report` too."""

from pathlib import Path

import pytest

import rulebench
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store
from rulebench.report.by_task import ReportOptions, report_for, report_kind


def scenarios_run(store: Path, model: str = "scripted/echo") -> str:
    report = rulebench.run("scenarios", model, config={"suites": ["basic"]}, store=store, limit=6)
    return report.run.id


def test_a_scenarios_report_goes_into_the_folder_it_is_given(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first, second = scenarios_run(store), scenarios_run(store, "scripted/fixed")
    built = rulebench.build_report([first, second], store=store, folder=tmp_path / "out")
    assert built.path == tmp_path / "out" / "report.md"
    assert built.path.read_text(encoding="utf-8") == built.markdown
    assert built.numbers["report"] == "scenarios" and "Suites and buckets" in built.markdown
    with Store(store, readonly=True) as db:
        printed_only = report_for(db, [first, second])
    assert printed_only.path is None and printed_only.markdown == built.markdown


def test_runs_of_different_tasks_are_refused_together(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    scenarios = scenarios_run(store)
    smoke = rulebench.run("smoke", "scripted/echo", store=store).run.id
    with Store(store, readonly=True) as db:
        assert report_kind(db, [scenarios]) == "scenarios"
        with pytest.raises(ConfigError, match="these runs are of different tasks") as refused:
            report_for(db, [scenarios, smoke], ReportOptions(folder=tmp_path / "never"))
        with pytest.raises(ConfigError, match="at least one run id"):
            report_kind(db, [])
    assert f"scenarios: {scenarios}; smoke: {smoke}" in str(refused.value)
    assert not (tmp_path / "never").exists()
