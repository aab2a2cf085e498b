"""What a merge says when it ends: what it added, which runs shards were joined into.

The command line prints these lines; a script merging stores reads the same `MergeReport`.
"""

from collections.abc import Sequence
from pathlib import Path

from rulebench.engine.store.merge import MergeReport


def merge_lines(report: MergeReport, sources: Sequence[Path], into: Path) -> list[str]:
    """The summary line, then one line per run that shards were joined into."""
    replaced = (
        f"; {report.results_replaced} error results replaced by later ones"
        if report.results_replaced
        else ""
    )
    summary = (
        f"merged {len(sources)} store(s) into {into}: {report.runs_added} runs, "
        f"{report.results_added} results, {report.cache_added} cache entries added{replaced}"
    )
    joined = [f"sharded run {run}: see `rulebench runs show {run}`" for run in report.sharded_runs]
    return [summary, *joined]
