"""The report a set of runs gets, chosen by their task: one entry point for every family.

`rulebench report RUN...` and `rulebench.build_report` both come here, so a run id is all a
user needs to know; runs of different tasks make no single report and are refused together.
The runs may lie in several stores (a `StoreSet`), each read where it is.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from rulebench.core.errors import ConfigError
from rulebench.core.pricing import PriceTable
from rulebench.engine.store.store_set import StoreSet
from rulebench.report.build import (
    BuiltReport,
    RunSource,
    inferential_report,
    judge_report,
    scenarios_report,
)
from rulebench.report.kinds import DEFAULT_EXTRACT, REPORT_KINDS, ExtractMode, ReportKind


class ReportOptions(NamedTuple):
    """How to build a report; each family reads the options that apply to it."""

    folder: Path | None = None
    """Where report.md (and an inferential report's plots) go; None writes nothing."""
    extract: ExtractMode = DEFAULT_EXTRACT
    """Inferential runs only: the extraction mode the answers are re-scored with."""
    render: bool = False
    """Inferential runs only: build the document without a folder (for an HTML page)."""
    prices: PriceTable | None = None


def report_kind(store: RunSource, run_ids: Sequence[str]) -> ReportKind:
    """The one report `run_ids` share (ids or unique prefixes).

    Raises:
        ConfigError: no runs, runs of several tasks (each task is listed with its runs), a
            task without a report, or more than one judge run.
    """
    if not run_ids:
        raise ConfigError("report needs at least one run id")
    by_task: dict[str, list[str]] = {}
    for run_id in run_ids:
        run = StoreSet.of(store).get_run(run_id)
        by_task.setdefault(run.task, []).append(run.id)
    if len(by_task) > 1:
        listed = "; ".join(f"{task}: {', '.join(ids)}" for task, ids in by_task.items())
        raise ConfigError(
            f"these runs are of different tasks ({listed}); a report covers runs of one "
            "task: report each task's runs on their own"
        )
    [task] = by_task
    if task not in REPORT_KINDS:
        raise ConfigError(
            f"no report for {len(run_ids)} '{task}' run(s): reports cover inferential and "
            "scenarios runs (several are compared) and one judge run"
        )
    if task == "judge" and len(run_ids) > 1:
        raise ConfigError(f"a judge report covers one judge run; {len(run_ids)} were given")
    return task


def report_for(
    store: RunSource, run_ids: Sequence[str], options: ReportOptions | None = None
) -> BuiltReport:
    """The report of one run, or the comparison of several of the same task."""
    return build_kind(store, report_kind(store, run_ids), run_ids, options or ReportOptions())


def build_kind(
    store: RunSource, kind: ReportKind, run_ids: Sequence[str], options: ReportOptions
) -> BuiltReport:
    """The `kind` report of `run_ids`; a run of another task is a ConfigError naming it."""
    if kind == "inferential":
        return inferential_report(
            store, run_ids, options.extract, options.folder, options.render, options.prices
        )
    if kind == "scenarios":
        return scenarios_report(store, run_ids, options.prices, options.folder)
    if len(run_ids) != 1:
        raise ConfigError(f"a judge report covers one judge run; {len(run_ids)} were given")
    return judge_report(store, run_ids[0], options.prices, options.folder)
