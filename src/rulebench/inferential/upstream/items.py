"""The upstream wording for a run: the clone it comes from, and every item's prompt.

`resolve_source` finds and checks the clone once per run and records it (commit and file
hash); on `--resume` it refuses a clone that changed since the run began, because the prompts,
and with them the item ids, would change. `render_upstream` builds every item's prompt in one
child process.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import JsonValue

from rulebench.core.errors import ConfigError, DataError
from rulebench.core.rules import Sample
from rulebench.core.wording import UpstreamText
from rulebench.inferential.settings import Setting
from rulebench.inferential.upstream.calls import (
    ALL_NUMBER,
    PY310_SAMPLING,
    UpstreamCall,
    branch_note,
    call_seed,
    draw_note,
    raw_records,
    rule_dict,
    upstream_args,
)
from rulebench.inferential.upstream.locate import check_processor, describe, find_processor
from rulebench.inferential.upstream.render import UpstreamPrompt, build_prompts


class UpstreamItemPrompt(NamedTuple):
    """One item's prompt in upstream's wording, the rules it lists and how it was built."""

    text: str
    listed: tuple[str, ...]
    """Ids of the listed rules in upstream's order; empty where none were drawn."""
    golden_index: int | None
    """0-based position of the golden rule among `listed`; None without a listing."""
    rule_draw: str
    """Whose draw the listing is, and every substitution made to build the prompt."""


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
) -> list[UpstreamItemPrompt]:
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
                # main.py's behaviour analysis passes no all_number; its test loop passes 20
                all_number=None if setting.cite_rule else ALL_NUMBER,
            )
        )
    built = build_prompts(processor, rules, calls)
    return [_item_prompt(call, prompt, seed) for call, prompt in zip(calls, built, strict=True)]


def _item_prompt(call: UpstreamCall, prompt: UpstreamPrompt, seed: int) -> UpstreamItemPrompt:
    """The listing and the recorded substitutions of one built prompt."""
    listed = prompt.listed or ()
    golden = _golden_id(call.record)
    golden_index = listed.index(golden) if golden in listed else None
    if golden_index is None and listed and isinstance(prompt.info, int):
        golden_index = prompt.info  # clutrr and salad report the position themselves
    notes = branch_note(call.dataset) + ((PY310_SAMPLING,) if prompt.sampled_set else ())
    return UpstreamItemPrompt(prompt.text, listed, golden_index, draw_note(seed, notes))


def _golden_id(record: dict[str, JsonValue]) -> str | None:
    """The golden rule's id in a raw record (`rule` is a one-id list, or an id for salad)."""
    rule = record.get("rule")
    if isinstance(rule, list):
        rule = rule[0] if rule else None
    return None if rule is None or isinstance(rule, (dict, list)) else str(rule)
