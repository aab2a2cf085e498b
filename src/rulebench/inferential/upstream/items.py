"""The upstream wording for a run: the clone it comes from, and every item's prompt.

`resolve_source` finds and checks the clone once per run and records it (commit and file
hash); on `--resume` it refuses a clone that changed since the run began, because the prompts,
and with them the item ids, would change. `render_upstream` builds every item's prompt in one
child process and reads back, from each prompt's text, which rules it lists (`listing.py`);
`probe_upstream` finds the cells of the paper design the clone cannot build (`skipped.py`).
"""

import logging
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
from rulebench.inferential.upstream.listing import RuleTexts, read_listing
from rulebench.inferential.upstream.locate import check_processor, describe, find_processor
from rulebench.inferential.upstream.render import UpstreamPrompt, build_prompts, describe_failure
from rulebench.inferential.upstream.skipped import SkippedCell

logger = logging.getLogger(__name__)


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
    """Upstream's prompt for every (sample, setting), in order, seeded per item.

    Raises:
        ConfigError: upstream's code raised for one of them (the first such is named).
    """
    calls, rules = _calls(cells, data_root, seed, model_name)
    built = build_prompts(processor, rules, calls)
    for call, prompt in zip(calls, built, strict=True):
        if prompt.failed is not None:
            raise ConfigError(describe_failure(processor, prompt.failed, call))
    return _ItemPrompts(rules, seed).all(cells, calls, built)


def probe_upstream(
    cells: Sequence[tuple[Sample, Setting]],
    processor: Path,
    data_root: str | None,
    seed: int,
    model_name: str,
) -> tuple[SkippedCell, ...]:
    """The cells whose first question upstream's code cannot build, with its error.

    Upstream's failures belong to a branch (a missing branch, an f-string, a rule file too
    small for its draw), not to a question, so the first question of a cell stands for it.
    """
    firsts: dict[tuple[str, Setting], Sample] = {}
    for sample, setting in cells:
        firsts.setdefault((sample.task, setting), sample)
    chosen = [(sample, setting) for (_, setting), sample in firsts.items()]
    calls, rules = _calls(chosen, data_root, seed, model_name)
    built = build_prompts(processor, rules, calls)
    return tuple(
        SkippedCell(
            task=sample.task,
            setting=setting.label(),
            error=describe_failure(processor, prompt.failed, call),
        )
        for (sample, setting), call, prompt in zip(chosen, calls, built, strict=True)
        if prompt.failed is not None
    )


def _calls(
    cells: Sequence[tuple[Sample, Setting]], data_root: str | None, seed: int, model_name: str
) -> tuple[list[UpstreamCall], dict[str, JsonValue]]:
    """Each cell's call of upstream's `prompt`, and the rule files the calls read."""
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
    return calls, rules


class _ItemPrompts:
    """Built prompts as items record them: the listed rules read back from each text."""

    def __init__(self, rules: dict[str, JsonValue], seed: int) -> None:
        self._rules = rules
        self._seed = seed
        self._texts: dict[tuple[str, str], RuleTexts] = {}
        self._unread: set[str] = set()

    def all(
        self,
        cells: Sequence[tuple[Sample, Setting]],
        calls: Sequence[UpstreamCall],
        built: Sequence[UpstreamPrompt],
    ) -> list[UpstreamItemPrompt]:
        return [
            self.one(setting, call, prompt)
            for (_, setting), call, prompt in zip(cells, calls, built, strict=True)
        ]

    def one(
        self, setting: Setting, call: UpstreamCall, prompt: UpstreamPrompt
    ) -> UpstreamItemPrompt:
        notes = branch_note(call.dataset) + ((PY310_SAMPLING,) if prompt.sampled_set else ())
        draw = draw_note(self._seed, notes)
        if setting.quantity == "none":
            return UpstreamItemPrompt(prompt.text, (), None, draw)
        listing = read_listing(
            call.dataset, prompt.text, self._texts_of(call), _golden_id(call.record)
        )
        if listing is None:
            self._warn_unread(call.dataset, setting)
            return UpstreamItemPrompt(prompt.text, (), None, draw)
        return UpstreamItemPrompt(prompt.text, listing.ids, listing.golden_index, draw)

    def _texts_of(self, call: UpstreamCall) -> RuleTexts:
        key = (call.dataset, f"{call.args['rule_type']}")
        if key not in self._texts:
            self._texts[key] = RuleTexts(self._rules[call.dataset], key[1])
        return self._texts[key]

    def _warn_unread(self, task: str, setting: Setting) -> None:
        cell = f"{task} {setting.label()}"
        if cell not in self._unread:
            self._unread.add(cell)
            logger.warning(
                "%s: rulebench cannot read which rules upstream's prompt lists (its rule block "
                "is not in a layout rulebench knows); its items record none, and the "
                "triggering vs execution split leaves them out",
                cell,
            )


def _golden_id(record: dict[str, JsonValue]) -> str | None:
    """The golden rule's id in a raw record (`rule` is a one-id list, or an id for salad)."""
    rule = record.get("rule")
    if isinstance(rule, list):
        rule = rule[0] if rule else None
    return None if rule is None or isinstance(rule, (dict, list)) else str(rule)
