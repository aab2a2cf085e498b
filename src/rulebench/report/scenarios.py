"""The scenarios report: bucket table, headline, breakdowns, repeats and paired comparisons."""

from collections.abc import Sequence

from rulebench.report.markdown import table
from rulebench.scenarios.scoring import CaseRecord, compare, failure_spread, headline, rates_by

Runs = Sequence[tuple[str, str, list[CaseRecord]]]
"""(label, protocol label, records) per run."""


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


def breakdown_section(runs: Runs, field: str) -> str:
    """Pass rate per scenario, behavior or strategy."""
    rows = []
    for label, _, records in runs:
        for (value,), rate in rates_by(records, lambda r: (str(getattr(r, field)),)).items():
            rows.append([label, value, rate.format()])
    return table(["model", field, "pass % [95% CI]"], rows)


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
                    f"{result.p_value:.4f}",
                ]
            )
    if not rows:
        return "_One run: nothing to compare._"
    return table(
        ["first", "second", "shared cases", "only first passed", "only second passed", "McNemar p"],
        rows,
    )


INTRODUCTION = (
    "# Rule-obeying scenarios report\n\n"
    "Pass rate in %, [95% bootstrap interval]; the headline is the unweighted mean of basic and "
    "redteam, harmless and helpful. Errors (failed calls, malformed cases) are neither passes "
    "nor failures."
)


def render(runs: Runs) -> str:
    """The whole report as Markdown."""
    sections = [
        INTRODUCTION,
        "## Suites and buckets\n\n" + bucket_section(runs),
        "## By scenario\n\n" + breakdown_section(runs, "scenario"),
        "## By behavior\n\n" + breakdown_section(runs, "behavior"),
        "## By strategy\n\n" + breakdown_section(runs, "strategy"),
        "## Repeats\n\n" + repeats_section(runs),
        "## Paired comparison\n\n" + comparison_section(runs),
    ]
    return "\n\n".join(sections) + "\n"
