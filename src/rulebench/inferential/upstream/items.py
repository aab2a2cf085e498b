"""The upstream wording for a run: the clone it comes from, and every item's prompt.

`resolve_source` finds and checks the clone once per run and records it (commit and file
hash); on `--resume` it refuses a clone that changed since the run began, because the prompts,
and with them the item ids, would change. `render_upstream` builds every item's prompt in one
child process.
"""

from collections.abc import Sequence
from pathlib import Path

from pydantic import JsonValue

from rulebench.core.errors import ConfigError, DataError
from rulebench.core.rules import Sample
from rulebench.core.wording import UpstreamText
from rulebench.inferential.settings import Setting
from rulebench.inferential.upstream.calls import (
    UpstreamCall,
    call_seed,
    raw_records,
    rule_dict,
    upstream_args,
)
from rulebench.inferential.upstream.locate import check_processor, describe, find_processor
from rulebench.inferential.upstream.render import UpstreamPrompt, build_prompts


def resolve_source(
    upstream: str | None, data_root: str | None, recorded: UpstreamText | None
) -> tuple[Path, UpstreamText]:
    """The clone's processor.py and its record; the same files as `recorded` when given."""
    processor = find_processor(upstream, data_root)
    check_processor(processor)
    source = describe(processor)
    if recorded is not None and recorded.files_sha256 != source.files_sha256:
        raise ConfigError(
            f"{processor}: changed since the run was made (it was {recorded.short()} at "
            f"{recorded.root}, it is {source.short()} now); upstream's prompts would differ, "
            "so the run cannot be resumed with this clone"
        )
    return processor, source


def render_upstream(
    cells: Sequence[tuple[Sample, Setting]],
    processor: Path,
    data_root: str | None,
    seed: int,
    model_name: str,
) -> list[UpstreamPrompt]:
    """Upstream's prompt for every (sample, setting), in order, seeded per item."""
    if data_root is None:
        raise ConfigError("--prompts upstream needs --data-root (the release's data folder)")
    root = Path(data_root)
    records: dict[str, dict[str, dict[str, JsonValue]]] = {}
    rules: dict[str, JsonValue] = {}
    calls = []
    for sample, setting in cells:
        task = sample.task
        args = upstream_args(task, setting, model_name)
        if task not in records:
            records[task] = raw_records(root, task)
            rules[task] = rule_dict(root, task)
        record = records[task].get(sample.id)
        if record is None:
            raise DataError(f"{task}/test_data.json: no record makes sample {sample.id}")
        calls.append(
            UpstreamCall(
                dataset=task,
                args=args,
                record=record,
                seed=call_seed(seed, task, setting, sample),
            )
        )
    return build_prompts(processor, rules, calls)
