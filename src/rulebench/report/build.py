"""Building a report from stored runs: the same for the CLI, the Python API and the web app.

Each builder opens the runs it is given (refusing runs of another task), computes the
family's analyses, renders the Markdown and gathers the numbers `--json` prints, plus the
warnings a reader must see (runs that did not complete, judge sources with errors). A built
report can then become one HTML page with its runs' configurations and items (`html_report`).

Every builder takes one store or a `StoreSet`: runs of several stores are read where they lie,
each from its own store, and compared as if one store held them all.
"""

from collections.abc import Sequence
from itertools import islice
from pathlib import Path
from typing import NamedTuple

from pydantic import JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.pricing import PriceTable
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.store.store_set import StoreSet
from rulebench.report.document import Document, to_markdown, write_markdown
from rulebench.report.kinds import DEFAULT_EXTRACT, HTML_ITEMS, ExtractMode
from rulebench.report.run_notes import run_warnings
from rulebench.report.usage import run_totals, usage_json, usage_section


class BuiltReport(NamedTuple):
    """A report: its Markdown, its numbers as JSON, and what its reader must be warned of."""

    markdown: str
    """Empty for an inferential report without a folder (its Markdown links plot files)."""
    numbers: dict[str, JsonValue]
    warnings: list[str]
    path: Path | None = None
    """Where report.md was written, when the builder wrote files (inferential)."""
    document: Document | None = None
    """The sections the Markdown was made from; None when not rendered."""
    run_ids: tuple[str, ...] = ()
    """The runs reported on (whole ids), for the HTML page's configurations and items."""


RunSource = Store | StoreSet
"""Where a report reads its runs: one store, or several read as one."""


def runs_of(store: RunSource, run_ids: Sequence[str], task: str) -> list[RunRecord]:
    """The runs by id or prefix; a run of another task is a ConfigError naming it."""
    runs = [StoreSet.of(store).get_run(run_id) for run_id in run_ids]
    for run in runs:
        if run.task != task:
            article = "an" if task[0] in "aeiou" else "a"
            raise ConfigError(f"run {run.id} is a '{run.task}' run, not {article} {task} one")
    return runs


def task_config(run: RunRecord) -> dict[str, JsonValue]:
    """A run's stored task configuration (what rebuilds its samples, its protocol...)."""
    config = run.config.get("task_config")
    return config if isinstance(config, dict) else {}


def run_label(run: RunRecord, models: list[str]) -> str:
    """The model, and the run id when a model repeats.

    How items were scored is labelled per cell (`inferential_cells.answer_label`), not per run:
    a log-likelihood run may still generate items that have no candidate answers. A run that
    asks StringGame only about held-out rules says which split (`--heldout-by`).
    """
    label = run.model if models.count(run.model) == 1 else f"{run.model} ({run.id})"
    heldout = task_config(run).get("heldout_by")
    return f"{label} [{HELDOUT_LABELS.get(str(heldout), str(heldout))}]" if heldout else label


HELDOUT_LABELS = {
    "rules": "stringgame: held-out rules, conditions and outputs seen in training",
    "composition": "stringgame: held out by composition, conditions and outputs unseen",
}
"""How a report names the StringGame split a run asked about (`InferentialConfig.heldout_by`)."""


def run_wordings(runs: Sequence[RunRecord]) -> tuple[list[str], list[str]]:
    """Each run's wording label, and the warning a comparison of differently worded runs needs.

    Upstream runs of one clone count as one wording even when their labels list other
    per-dataset substitutions (`run_wording.RunWording.text`).
    """
    from rulebench.report.run_wording import mixed_wording_warning, run_wording

    found = [run_wording(run) for run in runs]
    wordings = [w for w in found if w is not None]
    warning = mixed_wording_warning([w.text for w in wordings])
    return [w.label for w in wordings], [warning] if warning else []


def run_entry(
    source: RunSource, run: RunRecord, label: str, prices: PriceTable | None = None
) -> dict[str, JsonValue]:
    """What a JSON report says of a run before its numbers: who, status, tokens and cost."""
    store = StoreSet.of(source).store_of(run.id)
    return {
        "id": run.id,
        "model": run.model,
        "label": label,
        "status": store.effective_status(run),
        "warnings": list(run_warnings(store, run)),
        "usage": usage_json(run_totals(store, run, prices)),
    }


def with_usage(
    document: Document,
    source: RunSource,
    runs: Sequence[tuple[str, RunRecord]],
    prices: PriceTable | None,
) -> Document:
    """The document with its runs' tokens and cost as a last section."""
    stores = StoreSet.of(source)
    labelled = [(label, run_totals(stores.store_of(run.id), run, prices)) for label, run in runs]
    return document._replace(sections=(*document.sections, usage_section(labelled, prices)))


def inferential_report(  # noqa: PLR0913 - the report's options, each with a default
    store: RunSource,
    run_ids: Sequence[str],
    extract: ExtractMode = DEFAULT_EXTRACT,
    folder: Path | None = None,
    render: bool = False,
    prices: PriceTable | None = None,
) -> BuiltReport:
    """The paper's analyses of one run or a comparison; report.md and plots go to `folder`.

    Without a folder only the numbers are computed, unless `render` asks for the document
    (for an HTML page; the Markdown then stays empty, as it would link plots never saved).
    """
    from rulebench.inferential.analysis import to_records
    from rulebench.inferential.echo_baseline import echo_records, index_run
    from rulebench.report.inferential import inferential_document
    from rulebench.report.numbers import inferential_numbers

    runs = runs_of(store, run_ids, "inferential")
    models = [run.model for run in runs]
    results = {run.id: list(StoreSet.of(store).iter_results(run.id)) for run in runs}
    prompts, mixed = run_wordings(runs)
    entries = [
        {**run_entry(store, run, run_label(run, models), prices), "prompts": wording}
        for run, wording in zip(runs, prompts, strict=True)
    ]
    warnings = [w for entry in entries for w in _strs(entry["warnings"])] + mixed
    labelled = [(run_label(run, models), to_records(results[run.id], extract)) for run in runs]
    numbers: list[JsonValue] = [
        {**entry, **inferential_numbers(records)}
        for entry, (_, records) in zip(entries, labelled, strict=True)
    ]
    payload: dict[str, JsonValue] = {
        "report": "inferential",
        "extraction": extract,
        "runs": numbers,
    }
    ids = tuple(run.id for run in runs)
    if folder is None and not render:
        return BuiltReport("", payload, warnings, run_ids=ids)
    echoes = {
        label: echo_records(results[run.id], index_run(task_config(run)))
        for run, (label, _) in zip(runs, labelled, strict=True)
    }
    document = inferential_document(labelled, extract, echoes, warnings, prompts)
    document = with_usage(document, store, [(run_label(run, models), run) for run in runs], prices)
    if folder is None:
        return BuiltReport("", payload, warnings, None, document, ids)
    path = write_markdown(document, folder)
    return BuiltReport(path.read_text(encoding="utf-8"), payload, warnings, path, document, ids)


def scenarios_report(
    store: RunSource,
    run_ids: Sequence[str],
    prices: PriceTable | None = None,
    folder: Path | None = None,
) -> BuiltReport:
    """Pass rates per suite and bucket, the headline, breakdowns and paired comparisons.

    With a folder, report.md is written into it (the folder is made).
    """
    from rulebench.report.numbers import scenario_comparisons, scenario_numbers
    from rulebench.report.scenarios import scenarios_document
    from rulebench.scenarios.scoring import to_records

    runs = runs_of(store, run_ids, "scenarios")
    models = [run.model for run in runs]
    prompts, mixed = run_wordings(runs)
    labelled, entries = [], []
    for run, wording in zip(runs, prompts, strict=True):
        label = run.model if models.count(run.model) == 1 else f"{run.model} ({run.id})"
        protocol, suffix = _scenario_setup(task_config(run))
        labelled.append((label, protocol, to_records(StoreSet.of(store).iter_results(run.id))))
        entry = run_entry(store, run, label, prices)
        entries.append({**entry, "protocol": protocol, "prompts": wording, "suffix": suffix})
    warnings = [w for entry in entries for w in _strs(entry["warnings"])] + mixed
    numbers: list[JsonValue] = [
        {**entry, **scenario_numbers(records)}
        for entry, (_, _, records) in zip(entries, labelled, strict=True)
    ]
    comparisons = scenario_comparisons([(label, records) for label, _, records in labelled])
    payload: dict[str, JsonValue] = {
        "report": "scenarios",
        "runs": numbers,
        "comparisons": comparisons,
    }
    document = scenarios_document(labelled, warnings, prompts)
    shown = [(label, run) for (label, _, _), run in zip(labelled, runs, strict=True)]
    document = with_usage(document, store, shown, prices)
    return _finished(document, payload, warnings, folder, tuple(run.id for run in runs))


def _scenario_setup(config: dict[str, JsonValue]) -> tuple[str, dict[str, JsonValue] | None]:
    """A scenarios run's protocol label (its suffix, if any, added) and its suffix as JSON.

    A suffixed run must never pass for a plain one: its label says what was appended, where.
    """
    from rulebench.scenarios.protocol import stored_label
    from rulebench.scenarios.suffix import stored_suffix_label

    protocol = stored_label(config.get("protocol"))
    shown = stored_suffix_label(config)
    if shown is None:
        return protocol, None
    suffix: dict[str, JsonValue] = {
        "text": config.get("suffix"),
        "on": config.get("suffix_on", "every"),
        "source": config.get("suffix_source"),
    }
    return f"{protocol}; {shown}", suffix


def judge_report(
    store: RunSource, run_id: str, prices: PriceTable | None = None, folder: Path | None = None
) -> BuiltReport:
    """Accuracy, precision, recall and F1 of a judge run, overall and per rule, with 95% CIs.

    With a folder, report.md is written into it (the folder is made).
    """
    from rulebench.report.numbers import detection_json
    from rulebench.report.run_wording import run_prompts_label
    from rulebench.report.scenarios import judge_document
    from rulebench.scenarios.judge import detection_by_rule, detection_scores

    [run] = runs_of(store, [run_id], "judge")
    settings = task_config(run)
    sources = settings.get("runs")
    source_ids = [str(s) for s in sources] if isinstance(sources, list) else []
    entry = run_entry(store, run, run.model, prices)
    warnings = [*_strs(entry["warnings"]), *_source_warnings(StoreSet.of(store), source_ids)]
    triples = [
        (str(r.metadata.get("behavior")), str(r.outcome.details["truth"]), r.outcome.answer)
        for r in StoreSet.of(store).iter_results(run.id)
        if r.outcome is not None
    ]
    overall = detection_scores([(truth, answer) for _, truth, answer in triples])
    by_rule = detection_by_rule(triples)
    mode, wording = str(settings.get("mode", "compat")), run_prompts_label(run)
    title = (
        f"Judge run {run.id} ({run.model}); ground truth: {mode} "
        f"evaluators; source runs: {', '.join(source_ids) or 'none recorded'}; {wording}."
    )
    payload: dict[str, JsonValue] = {
        "report": "judge",
        "run": {
            **entry,
            "warnings": list(warnings),
            "mode": mode,
            "source_runs": list(source_ids),
            "prompts": wording,
        },
        "overall": detection_json(overall),
        "by_rule": {rule: detection_json(scores) for rule, scores in by_rule.items()},
    }
    document = judge_document(title, overall, by_rule, warnings)
    document = with_usage(document, store, [(run.model, run)], prices)
    return _finished(document, payload, warnings, folder, (run.id,))


def _source_warnings(stores: StoreSet, run_ids: Sequence[str]) -> list[str]:
    """`judge.source_warnings` of each source run, read from the store that holds it."""
    from rulebench.core.errors import StoreError
    from rulebench.scenarios.judge import source_warnings

    if not stores.is_several:
        return source_warnings(stores.stores[0], run_ids)
    warnings = []
    for run_id in run_ids:
        try:
            holder = stores.store_of(run_id)
        except StoreError:
            listed = ", ".join(str(path) for path in stores.paths)
            warnings.append(f"source run {run_id} is not in {listed}: cannot check it")
            continue
        warnings += source_warnings(holder, [run_id])
    return warnings


def _finished(
    document: Document,
    numbers: dict[str, JsonValue],
    warnings: list[str],
    folder: Path | None,
    run_ids: tuple[str, ...],
) -> BuiltReport:
    """A report without charts, written to `folder`/report.md when a folder is given."""
    if folder is None:
        return BuiltReport(to_markdown(document), numbers, warnings, None, document, run_ids)
    path = write_markdown(document, folder)
    markdown = path.read_text(encoding="utf-8")
    return BuiltReport(markdown, numbers, warnings, path, document, run_ids)


def html_report(source: RunSource, built: BuiltReport, items_per_run: int = HTML_ITEMS) -> str:
    """A built report as one self-contained HTML page, with its runs' configurations and items.

    Each run shows its first `items_per_run` items (in the order they finished) and says how
    many more it holds, so a long run still makes a page a browser opens.
    """
    from rulebench.report.html import RunAppendix, render_html

    if built.document is None:
        raise ConfigError(
            "this report has no sections to show: build the inferential report with "
            "render=True or a folder"
        )
    appendices = []
    for run_id in built.run_ids:
        store, run = StoreSet.of(source).locate(run_id)
        counts = store.count_results(run.id)
        shown = list(islice(store.iter_results(run.id), items_per_run))
        total = counts["ok"] + counts["error"]
        appendices.append(RunAppendix(run, store.effective_status(run), shown, total))
    return render_html(built.document, appendices)


def _strs(value: JsonValue) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []
