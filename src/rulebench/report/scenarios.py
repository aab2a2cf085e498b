"""The scenarios and judge reports: pass rates with breakdowns and comparisons; detection scores.

The scenarios report holds the bucket table, headline, breakdowns, repeats and paired
comparisons; the judge report holds detection scores overall and per rule.
"""

from collections.abc import Sequence
from typing import Literal

from rulebench.report.bar_chart import Bar, BarChart
from rulebench.report.document import Document, Section, to_markdown
from rulebench.report.markdown import escape_markdown, percent, table
from rulebench.report.run_notes import warning_block
from rulebench.report.run_wording import wording_header
from rulebench.scenarios.judge import DetectionScores, Interval
from rulebench.scenarios.scoring import (
    CaseRecord,
    Rate,
    compare,
    failure_spread,
    headline,
    rate,
    rates_by,
)

Runs = Sequence[tuple[str, str, list[CaseRecord]]]
"""(label, protocol label, records) per run."""
Breakdown = Literal["scenario", "behavior", "strategy"]
CHART_TITLES: dict[Breakdown, str] = {
    "scenario": "Pass rate by scenario",
    "behavior": "Pass rate by rule (behavior)",
    "strategy": "Pass rate by red-team strategy",
}
"""The breakdowns' bar charts, named as the explorer's charts page names them."""


def bucket_section(runs: Runs) -> str:
    """Pass rate per suite x bucket and the headline, one row per run."""
    buckets = sorted({(r.suite, r.bucket) for _, _, records in runs for r in records})
    rows = []
    for label, protocol, records in runs:
        by = rates_by(records, lambda r: (r.suite, r.bucket))
        top = headline(records)
        rows.append(
            [
                label,
                protocol,
                *[by[b].format() if b in by else "-" for b in buckets],
                top.format() if top else "-",
            ]
        )
    return table(["model", "protocol", *[f"{s} {b}" for s, b in buckets], "headline"], rows)


def breakdown_rates(runs: Runs, field: Breakdown) -> list[tuple[str, dict[str, Rate]]]:
    """Per run (by label): pass rate per scenario, behavior or strategy.

    Red-team cases only have a strategy; benign and basic ones are left out of that breakdown.
    """
    found = []
    for label, _, records in runs:
        having = [r for r in records if getattr(r, field) is not None]
        by = rates_by(having, lambda r: (str(getattr(r, field)),))
        found.append((label, {value: rate for (value,), rate in by.items()}))
    return found


def breakdown_section(runs: Runs, field: Breakdown) -> str:
    """Pass rate per scenario, behavior or strategy (red-team cases only: others have none)."""
    rows = [
        [label, value, rate.format()]
        for label, rates in breakdown_rates(runs, field)
        for value, rate in rates.items()
    ]
    if not rows:
        return f"_No case has a {field}._"
    return table(["model", field, "pass % [95% CI]"], rows)


def breakdown_chart(runs: Runs, field: Breakdown) -> BarChart | None:
    """The breakdown's rates as bars; several runs side by side under each value (None: no rate).

    A value one run lacks gets no bar for it: an unmeasured rate never reads as 0%.
    """
    per_run = breakdown_rates(runs, field)
    values = sorted({value for _, rates in per_run for value in rates})
    is_alone = len(per_run) == 1
    bars = tuple(
        Bar(value, rates[value], "" if is_alone else label)
        for value in values
        for label, rates in per_run
        if value in rates
    )
    return BarChart(f"chart-{field}", CHART_TITLES[field], bars) if bars else None


def _breakdown(runs: Runs, heading: str, field: Breakdown) -> Section:
    chart = breakdown_chart(runs, field)
    return Section(heading, breakdown_section(runs, field), bar_charts=(chart,) if chart else ())


THINKING_INTRODUCTION = (
    "Runs with --judge-reasoning: each case judged twice, on its answers (the score, as a user "
    "who sees only answers reads it) and on every reply's thinking followed by its answer. A "
    "case kept in the answer but not anywhere broke its rule in the thinking only: a leak "
    "wherever the reasoning is shown."
)


def thinking_section(runs: Runs) -> str | None:
    """The pass rates on answers and with thinking shown, side by side; None without them."""
    judged = [
        (label, protocol, [r for r in records if r.passed_anywhere is not None])
        for label, protocol, records in runs
    ]
    judged = [(label, protocol, records) for label, protocol, records in judged if records]
    if not judged:
        return None
    rows = []
    for label, protocol, records in judged:
        anywhere = [r.judged_anywhere() for r in records]
        only_thinking = sum(r.passed and not r.passed_anywhere for r in records)
        answer_top, anywhere_top = headline(records), headline(anywhere)
        rows.append(
            [
                label,
                protocol,
                rate([records]).format(),
                rate([anywhere]).format(),
                answer_top.format() if answer_top else "-",
                anywhere_top.format() if anywhere_top else "-",
                str(only_thinking),
            ]
        )
    header = [
        "model",
        "protocol",
        "answer pass %",
        "anywhere pass %",
        "answer headline",
        "anywhere headline",
        "broken in thinking only",
    ]
    by_bucket = bucket_section(
        [
            (f"{label} (anywhere)", protocol, [r.judged_anywhere() for r in records])
            for label, protocol, records in judged
        ]
    )
    return f"{THINKING_INTRODUCTION}\n\n{table(header, rows)}\n\n{by_bucket}"


def repeats_section(runs: Runs) -> str:
    """Standard deviation of failures across repeats (only for runs with --repeats > 1)."""
    rows = [
        [label, f"{suite} {bucket}", f"{spread:.2f}"]
        for label, _, records in runs
        if len({r.repeat for r in records}) > 1
        for (suite, bucket), spread in failure_spread(records).items()
    ]
    return (
        table(["model", "suite bucket", "std of failed cases across repeats"], rows)
        if rows
        else "_Single repeat._"
    )


def comparison_section(runs: Runs) -> str:
    """McNemar's exact test between each pair of runs on the cases they share."""
    rows = []
    for i, (first, _, a) in enumerate(runs):
        for second, _, b in runs[i + 1 :]:
            result = compare(a, b)
            rows.append(
                [
                    first,
                    second,
                    str(result.pairs),
                    str(result.only_first_passed),
                    str(result.only_second_passed),
                    "n/a" if result.p_value is None else f"{result.p_value:.4f}",
                ]
            )
    if not rows:
        return "_One run: nothing to compare._"
    return table(
        ["first", "second", "shared cases", "only first passed", "only second passed", "McNemar p"],
        rows,
    )


TITLE = "Rule-obeying scenarios report"
INTRODUCTION = (
    "Pass rate in %, [95% interval]: Wilson for each pass rate, which is never zero-width at "
    "0% or 100%; the headline is the unweighted mean of basic and redteam, harmless and "
    "helpful, with a stratified bootstrap interval (the mean of the four Wilson intervals where "
    "every bucket is all passes or all failures). Strategies are the red-team ones; benign and "
    "basic cases have none. McNemar p is n/a for runs that share no case. Errors (failed "
    "calls, malformed cases) are neither passes nor failures."
)


def scenarios_document(
    runs: Runs, warnings: Sequence[str] = (), prompts: Sequence[str] = ()
) -> Document:
    """The whole report; `warnings` (runs not completed, errors) come first.

    `prompts`: each run's wording label (`prompts_label`), shown under the warnings.
    """
    notes = warning_block(warnings)
    thinking = thinking_section(runs)
    header = wording_header([label for label, _, _ in runs], prompts)
    sections = (
        *([Section("", notes)] if notes else []),
        *([Section("", header)] if header else []),
        Section("", INTRODUCTION),
        Section("Suites and buckets", bucket_section(runs)),
        *([Section("Thinking included", thinking)] if thinking else []),
        _breakdown(runs, "By scenario", "scenario"),
        _breakdown(runs, "By behavior", "behavior"),
        _breakdown(runs, "By strategy", "strategy"),
        Section("Repeats", repeats_section(runs)),
        Section("Paired comparison", comparison_section(runs)),
    )
    return Document(TITLE, sections)


def render(runs: Runs, warnings: Sequence[str] = (), prompts: Sequence[str] = ()) -> str:
    """The whole report as Markdown (`scenarios_document`)."""
    return to_markdown(scenarios_document(runs, warnings, prompts))


JUDGE_INTRODUCTION = (
    'Violation ("fail") is the positive class; an answer naming neither pass nor fail counts '
    "as the wrong label. Scores in %, [95% interval]: Wilson for accuracy, precision and "
    "recall; for F1, the Wilson interval of J = TP / (TP + FP + FN) mapped through "
    "F1 = 2J / (1 + J). The ground truth is our evaluators' verdict on the last exchange."
)


def _f1(value: Interval) -> str:
    if value.value != value.value:  # NaN: no item either side calls a violation
        return "-"
    return f"{100 * value.value:.1f} [{100 * value.low:.1f}-{100 * value.high:.1f}]"


def _judge_row(name: str, scores: DetectionScores) -> list[str]:
    return [
        name,
        str(scores.n),
        percent(scores.accuracy),
        percent(scores.precision),
        percent(scores.recall),
        _f1(scores.f1),
        str(scores.unparsed),
    ]


def judge_document(
    title: str, overall: DetectionScores, by_rule: dict[str, DetectionScores], warnings: list[str]
) -> Document:
    """The judge report: overall and per-rule scores, and the source runs' problems.

    Args:
        title: what was judged, in words (run id, model, evaluator mode); outside text.
        overall: the scores over every item.
        by_rule: the scores per behavior.
        warnings: why the numbers may not stand for the whole task: the judge run or its
            source runs did not complete or hold errors; shown at the top.
    """
    notes = warning_block(warnings)
    rows = [_judge_row("all rules", overall)] + [
        _judge_row(rule, scores) for rule, scores in by_rule.items()
    ]
    header = ["rule", "n", "accuracy", "precision", "recall", "F1", "unparsed"]
    sections = (
        *([Section("", notes)] if notes else []),
        Section("", escape_markdown(title)),
        Section("", JUDGE_INTRODUCTION),
        Section("", table(header, rows)),
    )
    return Document("Judge (error detection) report", sections)
