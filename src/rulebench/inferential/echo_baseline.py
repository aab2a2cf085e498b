"""The prompt-echo baseline: how a reply that only repeats its prompt would score, per cell.

A prompt lists rules whose conclusions name answers (and law prompts list the candidate
charges), so an extraction that looks for an answer anywhere in a reply can find the gold in a
copy of the prompt: paper-mode law scoring gives an echo of the golden-rule prompt about 96%.
Each result is re-judged with its reply replaced by its own prompt (the user turns stored with
it), in both extraction modes, so a report can show the echo's accuracy beside the model's and
flag cells where the format, not the model, earns the score.
"""

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import JsonValue, ValidationError

from rulebench.core.errors import RulebenchError
from rulebench.core.items import ItemResult
from rulebench.core.rules import Sample
from rulebench.core.stats import Proportion, wilson_interval
from rulebench.inferential.analysis import Cell, ExtractMode, cell_of, record_from
from rulebench.inferential.data import judging_context
from rulebench.inferential.item_meta import ItemMeta
from rulebench.inferential.judge import judge
from rulebench.inferential.task import InferentialTask

logger = logging.getLogger(__name__)

ECHO_HIGH = 0.5
"""An echo at or above this accuracy makes a cell's score say little about the model."""
EchoFlag = Literal["high", "above chance"]
MODES: tuple[ExtractMode, ...] = ("paper", "robust")


class SampleIndex(NamedTuple):
    """What re-judging needs beyond a result: its sample's candidates and law's charge list."""

    samples: Mapping[tuple[str, str], Sample]
    """(task, sample id) -> the sample, as the run made it."""
    charges: Mapping[str, tuple[str, ...]]
    """Task -> the charge list paper-mode law scoring walks (empty for other tasks)."""
    problem: str | None = None
    """Why the samples could not be rebuilt, when they could not."""


def index_run(task_config: Mapping[str, JsonValue]) -> SampleIndex:
    """Rebuild a run's samples from its stored task configuration (loads or generates data).

    Official data are read again from the run's `data_root`; when that fails the index is
    empty and says why, and the echo is judged without candidate answers.
    """
    try:
        task = InferentialTask(**task_config)
        root = Path(task.settings.data_root) if task.settings.data_root else None
        samples = {}
        charges = {}
        for name in task.settings.tasks:
            samples.update({(s.task, s.id): s for s in task.data(name).samples})
            charges[name] = judging_context(name, root)
    except (RulebenchError, ValidationError) as exc:
        problem = str(exc).splitlines()[0]
        logger.warning("prompt echo: samples not rebuilt (%s); judged without candidates", problem)
        return SampleIndex({}, {}, problem)
    return SampleIndex(samples, charges)


def prompt_text(result: ItemResult) -> str:
    """The user turns the model was sent, joined: what an echo model would reply."""
    return "\n\n".join(m.content for m in result.messages if m.role == "user")


class EchoRecord(NamedTuple):
    """How the echo of one item's prompt scores in each mode."""

    cell: Cell
    paper: bool | None
    """None when the echo reads as a refusal (SALAD), which does not count."""
    robust: bool | None
    chance: float | None
    """1 / the number of candidate answers; None for open answers or an unknown sample."""
    has_sample: bool
    """Whether the item's sample was found (without it, candidates and charges are unknown)."""


def echo_records(results: Iterable[ItemResult], index: SampleIndex) -> list[EchoRecord]:
    """The echo baseline of every answered, generated item (log-likelihood picks do not read)."""
    found = []
    for result in results:
        prompt = prompt_text(result)
        outcome = result.outcome
        if (
            outcome is None
            or outcome.details.get("scoring", "generate") != "generate"
            or not prompt
        ):
            continue
        meta = ItemMeta.read(result.metadata, result.item_id)
        if meta.repeat:
            continue  # a repeat's prompt is the first's: its echo adds no sample
        known = index.samples.get((meta.task, meta.sample_id))
        sample = _sample(meta, known)
        charges = index.charges.get(sample.task, ())
        judged = [judge(sample.task, prompt, sample, mode, charges) for mode in MODES]
        paper, robust = (None if j.refused else j.correct for j in judged)
        found.append(
            EchoRecord(
                cell=cell_of(record_from(result.metadata, None, None)),
                paper=paper,
                robust=robust,
                chance=1 / len(sample.candidates) if sample.candidates else None,
                has_sample=known is not None,
            )
        )
    return found


def _sample(meta: ItemMeta, known: Sample | None) -> Sample:
    """The item's sample with the item's gold (the counterfactual one where that applies)."""
    if known is not None:
        return known.model_copy(update={"gold": meta.gold})
    return Sample(id=meta.sample_id, task=meta.task, question="", gold=meta.gold, golden_rule="")


class EchoCell(NamedTuple):
    """One cell's echo accuracy in each mode."""

    paper: Proportion
    robust: Proportion
    chance: float | None
    """The mean chance level of the cell's items; None when unknown for any of them."""
    complete: bool
    """Every item was judged with its sample's candidates (else the figures are rougher)."""


def echo_cells(records: Iterable[EchoRecord]) -> dict[Cell, EchoCell]:
    """Echo accuracy per cell, in a stable order."""
    groups: dict[Cell, list[EchoRecord]] = defaultdict(list)
    for record in records:
        groups[record.cell].append(record)
    return {cell: _echo_cell(members) for cell, members in sorted(groups.items(), key=str)}


def _echo_cell(members: list[EchoRecord]) -> EchoCell:
    paper = [r.paper for r in members if r.paper is not None]
    robust = [r.robust for r in members if r.robust is not None]
    chances = [r.chance for r in members if r.chance is not None]
    return EchoCell(
        paper=wilson_interval(sum(paper), len(paper)),
        robust=wilson_interval(sum(robust), len(robust)),
        chance=sum(chances) / len(chances) if len(chances) == len(members) else None,
        complete=all(r.has_sample for r in members),
    )


def echo_flags(echo: EchoCell) -> dict[ExtractMode, EchoFlag]:
    """Modes in which the echo scores too well: at least `ECHO_HIGH`, or surely above chance.

    "Surely above chance" means the lower end of the 95% interval is above the chance level.
    """
    flags: dict[ExtractMode, EchoFlag] = {}
    for mode, found in zip(MODES, (echo.paper, echo.robust), strict=True):
        if not found.n:
            continue
        if found.value >= ECHO_HIGH:
            flags[mode] = "high"
        elif echo.chance is not None and found.low > echo.chance:
            flags[mode] = "above chance"
    return flags
