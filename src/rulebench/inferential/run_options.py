"""The options of `run inferential` as a front end takes them, turned into the run's config.

The command line and the Python API (`rulebench.run("inferential", config=InferentialOptions(
...))`) both call `prepare_inferential`: it checks the options together (--grid paper beside
the settings it fixes, the values of the repeatable choices) and maps them onto the config and
its grid, so both store the same spec. An option left out takes the config's default
(`InferentialConfig`, `Grid`).
"""

from collections.abc import Callable
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.errors import ConfigError
from rulebench.core.field_defaults import default_of
from rulebench.core.rules import RuleForm
from rulebench.core.validation import validate_labelled
from rulebench.core.wording import Prompts
from rulebench.inferential.data import DEFAULT_GENERATED_SIZE
from rulebench.inferential.registry import GENERATED, OFFICIAL
from rulebench.inferential.resampling import Resample
from rulebench.inferential.settings import Grid, Layout, Quantity
from rulebench.inferential.task import ExtractMode, InferentialConfig, Scoring
from rulebench.inferential.tasks.stringgame.rules.heldout import HeldOutBy

Toggle = Literal["off", "on", "both"]
"""A setting run without, with, or both ways: the grid's tuple of booleans."""
TOGGLES: dict[Toggle, tuple[bool, ...]] = {"off": (False,), "on": (True,), "both": (False, True)}

GRID_FIXES = {
    "quantities": "quantity",
    "forms": "form",
    "cot": "cot",
    "counterfactual": "counterfactual",
    "shots": "shots",
    "cite_rule": "cite_rule",
}
"""The options the paper design fixes itself (field: the option's name in an error); giving
one with --grid paper is an error."""

LIMIT_HELP = (
    "Run only the first N items in task, setting, sample order: with the defaults, "
    f"-n {DEFAULT_GENERATED_SIZE} is all kinship and no stringgame (see --per-group for a "
    "smaller run of every cell)."
)
"""What the run setting `limit` means for this task's item order (`-n` of `run inferential`)."""


class InferentialOptions(BaseModel):
    """The options of `run inferential`: each None (or empty, or False) when not given.

    Each field's docstring is its option's help (`use_attribute_docstrings`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    tasks: tuple[str, ...] = Field(
        default=(),
        description=f"Task, repeatable: {', '.join(GENERATED)} (generated) or an official "
        f"dataset ({', '.join(OFFICIAL)}; needs --data-root); `rulebench list inferential` "
        "describes them.",
    )
    per_group: int | None = Field(
        default=None,
        ge=1,
        description=f"Samples per task (generated: {DEFAULT_GENERATED_SIZE}; official: all). "
        "Not -n, which is --limit.",
    )
    data_root: Path | None = None
    """The release's data folder, <clone>/dataset (holds clutrr/, deer/, ...)."""
    # Text, checked by `choices`: a bad value is then one line naming the option and the values.
    quantities: tuple[str, ...] = ()
    """Rule quantity, repeatable."""
    forms: tuple[str, ...] = ()
    """Rule form, repeatable."""
    cot: Toggle | None = None
    """Chain of thought: off, on or both."""
    counterfactual: Toggle | None = None
    """Counterfactual rules: off, on or both. Generated kinship has twins; official data is
    counterfactual in its -cf folders (always, whatever this says); on a task without a
    counterfactual form, on is an error and both keeps the factual half."""
    shots: int | None = Field(default=None, ge=0)
    """Demonstrations per prompt."""
    layout: Layout | None = None
    """shared: one rule list first in every all-rule prompt (prefix reuse)."""
    cite_rule: bool = False
    """Ask for "Applied rule: N" (trigger/execution analysis)."""
    grid: Literal["paper"] | None = None
    """paper: the paper's whole design (experiments 1-5: every quantity x NL/FOL zero-shot;
    golden/few few-shot with and without CoT; counterfactual sets few-shot CoT; rule citation
    on counterfactual sets) at its decoding (temperature 0, 500 new tokens). Cannot be combined
    with -q, --form, --cot, --counterfactual, --shots or --cite-rule."""
    extract: ExtractMode | None = None
    """Extraction that decides the score (both are stored)."""
    scoring: Scoring | None = None
    """loglik: pick the candidate answer with the highest summed log-likelihood (local models;
    tasks with candidate answers, not stringgame); loglik-norm: the highest per character
    (lm-eval's acc_norm). Both picks are stored. The chat template's final newline stays in the
    prompt, so each value is a constant per item below lm-eval's, which moves it into the
    continuation (same ranking)."""
    repeats: int | None = Field(default=None, ge=1)
    """Evaluate every item this many times, each with its own sampling seed."""
    heldout_by: HeldOutBy | None = None
    """stringgame: ask only about the IRFT held-out rules of `train data --seed SEED` (same
    --seed): rules (held-out rules; their conditions and outputs occur in training rules) or
    composition (conditions and outputs never in training)."""
    prompts: Prompts | None = None
    """Whose prompt text: rulebench's own wording (default) or the exact text RuleBench's
    released code sends, built by your clone of forangel2014's llm-rule-following at run time
    (official datasets only); only upstream's text makes numbers comparable with the paper's
    tables."""
    upstream: Path | None = None
    """Your clone of forangel2014's llm-rule-following (its root or its processor.py); default:
    the clone holding --data-root. Read only with --prompts upstream; its commit is recorded
    with the run."""
    resample: Resample | None = None
    """upstream: ask a ulogic, ulogic-cf or theoremQA item again while its reply lacks
    upstream's answer line (up to 5 requests, the later ones at temperature 0.5, top_p 1; the
    last reply is scored), as upstream's vLLM client does for open models; off: one request.
    Default: upstream with --prompts upstream, else off."""
    seed: int = 0
    """Seeds the generated samples, rule orders and demonstrations."""


def toggle_default(field: str) -> Toggle:
    """The Grid's default for a toggle as the option spells it (off, on or both)."""
    default = default_of(Grid, field)
    return next(name for name, values in TOGGLES.items() if values == default)


def prepare_inferential(
    options: InferentialOptions, label: Callable[[str], str] = str
) -> InferentialConfig:
    """The run's validated config from its options.

    Args:
        options: the options given.
        label: how an error names a config field (the CLI spells it as its option).

    Raises:
        ConfigError: options that conflict, or a value the config refuses (one line).
    """
    if options.grid is not None:
        refuse_grid_fixes(options, label)
    grid = validate_labelled(Grid, grid_fields(options, label), label)
    given = {
        "extract": options.extract,
        "scoring": options.scoring,
        "repeats": options.repeats,
        "resample": options.resample,
        "prompts": options.prompts,
        "upstream": str(options.upstream.resolve()) if options.upstream else None,
    }
    fields = {
        **({"tasks": options.tasks} if options.tasks else {}),
        "per_group": options.per_group,
        "seed": options.seed,
        "data_root": str(options.data_root.resolve()) if options.data_root else None,
        "grid": grid,
        "design": "paper" if options.grid else "grid",
        **{name: value for name, value in given.items() if value is not None},
        "heldout_by": options.heldout_by,
    }
    return validate_labelled(InferentialConfig, fields, label)


def grid_fields(options: InferentialOptions, label: Callable[[str], str]) -> dict[str, object]:
    """The grid's fields the options give (the others keep the Grid's defaults)."""
    fields: dict[str, object] = {"cite_rule": options.cite_rule, "seed": options.seed}
    if options.quantities:
        option = label(GRID_FIXES["quantities"])
        fields["quantities"] = choices(option, options.quantities, get_args(Quantity))
    if options.forms:
        fields["forms"] = choices(label(GRID_FIXES["forms"]), options.forms, get_args(RuleForm))
    if options.cot is not None:
        fields["cot"] = TOGGLES[options.cot]
    if options.counterfactual is not None:
        fields["counterfactual"] = TOGGLES[options.counterfactual]
    for name in ("shots", "layout"):
        if (value := getattr(options, name)) is not None:
            fields[name] = value
    return fields


def choices(option: str, given: tuple[str, ...], allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The values of a repeatable option, each one of `allowed`, else one line naming it."""
    for value in given:
        if value not in allowed:
            raise ConfigError(f"{option} {value!r} is not one of {', '.join(allowed)}")
    return given


def refuse_grid_fixes(options: InferentialOptions, label: Callable[[str], str]) -> None:
    """--grid paper decides the settings itself: never silently drop what the user asked for."""
    given = [
        label(option) for field, option in GRID_FIXES.items() if _is_given(getattr(options, field))
    ]
    if given:
        raise ConfigError(
            f"{label('grid')} paper sets the experiment settings itself; drop "
            f"{', '.join(given)} (or leave out {label('grid')} paper to choose settings yourself)"
        )


def _is_given(value: object) -> bool:
    """Whether an option holds a value (`--shots 0` is given: 0 is no "not given")."""
    return value is not None and value is not False and value != ()
