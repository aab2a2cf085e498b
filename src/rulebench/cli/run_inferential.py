"""`rulebench run inferential`: the RuleBench grid on a model (any subset of it)."""

from pathlib import Path
from typing import Annotated, Literal, get_args

import typer

from rulebench.cli import options as opt
from rulebench.cli.config_defaults import default_of, shown_default
from rulebench.cli.execute import run_task, typed_config
from rulebench.cli.renamed_options import pick_renamed
from rulebench.core.rules import RuleForm
from rulebench.inferential.data import DEFAULT_GENERATED_SIZE
from rulebench.inferential.registry import GENERATED, OFFICIAL
from rulebench.inferential.settings import Grid, Quantity
from rulebench.inferential.task import InferentialConfig

Toggle = Literal["off", "on", "both"]
_TOGGLE = {"off": (False,), "on": (True,), "both": (False, True)}


def _toggle_default(field: str) -> str:
    """The Grid's default for a toggle as the option spells it (off, on or both)."""
    default = default_of(Grid, field)
    return next(name for name, values in _TOGGLE.items() if values == default)


_GRID_OPTIONS = ("quantity", "form", "cot", "counterfactual", "shots", "cite_rule")
"""Options the paper design fixes itself; giving one with --grid paper is an error."""


_LIMIT = Annotated[
    int | None,
    typer.Option(
        "--limit",
        "-n",
        min=0,
        help="Run only the first N items in task, setting, sample order: with the "
        f"defaults, -n {DEFAULT_GENERATED_SIZE} is all kinship and no stringgame (see "
        "--per-group for a smaller run of every cell).",
        show_default=False,
    ),
]


@opt.run_command(limit=_LIMIT)
def inferential(
    ctx: typer.Context,
    run: opt.RunOptions,
    task: Annotated[
        list[str] | None,
        typer.Option(
            "--task",
            "-t",
            help=f"Task, repeatable: {', '.join(GENERATED)} (generated) or an official "
            f"dataset ({', '.join(OFFICIAL)}; needs --data-root); `rulebench list "
            f"inferential` describes them.",
            show_default=shown_default(InferentialConfig, "tasks"),
        ),
    ] = None,
    per_group: Annotated[
        int | None,
        typer.Option(
            "--per-group",
            min=1,
            help=f"Samples per task (generated: {DEFAULT_GENERATED_SIZE}; official: all). Not -n, "
            "which is --limit.",
            show_default=False,
        ),
    ] = None,
    samples: Annotated[int | None, typer.Option("--samples", min=1, hidden=True)] = None,
    deprecated_n: Annotated[int | None, typer.Option("--n", min=1, hidden=True)] = None,
    data_root: Annotated[
        Path | None,
        typer.Option(
            help="The release's data folder, <clone>/dataset (holds clutrr/, deer/, ...).",
            show_default=False,
        ),
    ] = None,
    quantity: Annotated[
        list[str] | None,
        typer.Option(
            "--quantity",
            "-q",
            metavar=f"<{'|'.join(get_args(Quantity))}>",
            help="Rule quantity, repeatable.",
            show_default=shown_default(Grid, "quantities"),
        ),
    ] = None,
    form: Annotated[
        list[str] | None,
        typer.Option(
            metavar=f"<{'|'.join(get_args(RuleForm))}>",
            help="Rule form, repeatable.",
            show_default=shown_default(Grid, "forms"),
        ),
    ] = None,
    cot: Annotated[
        Toggle | None,
        typer.Option(
            help="Chain of thought: off, on or both.", show_default=_toggle_default("cot")
        ),
    ] = None,
    counterfactual: Annotated[
        Toggle | None,
        typer.Option(
            help="Counterfactual rules: off, on or both. Generated kinship has twins; official "
            "data is counterfactual in its -cf folders (always, whatever this says); on a task "
            "without a counterfactual form, on is an error and both keeps the factual half.",
            show_default=_toggle_default("counterfactual"),
        ),
    ] = None,
    shots: Annotated[
        int | None,
        typer.Option(
            min=0, help="Demonstrations per prompt.", show_default=shown_default(Grid, "shots")
        ),
    ] = None,
    layout: Annotated[
        Literal["per-item", "shared"] | None,
        typer.Option(
            help="shared: one rule list first in every all-rule prompt (prefix reuse).",
            show_default=shown_default(Grid, "layout"),
        ),
    ] = None,
    cite_rule: Annotated[
        bool,
        typer.Option("--cite-rule", help='Ask for "Applied rule: N" (trigger/execution analysis).'),
    ] = False,
    grid: Annotated[
        Literal["paper"] | None,
        typer.Option(
            help="paper: the paper's whole design (experiments 1-5: every quantity x NL/FOL "
            "zero-shot; golden/few few-shot with and without CoT; counterfactual sets few-shot "
            "CoT; rule citation on counterfactual sets) at its decoding (temperature 0, 500 "
            "new tokens). Cannot be combined with -q, --form, --cot, --counterfactual, --shots "
            "or --cite-rule.",
            show_default=False,
        ),
    ] = None,
    extract: Annotated[
        Literal["paper", "robust"] | None,
        typer.Option(
            help="Extraction that decides the score (both are stored).",
            show_default=shown_default(InferentialConfig, "extract"),
        ),
    ] = None,
    scoring: Annotated[
        Literal["generate", "loglik", "loglik-norm"] | None,
        typer.Option(
            help="loglik: pick the candidate answer with the highest summed log-likelihood "
            "(local models; tasks with candidate answers, not stringgame); loglik-norm: the "
            "highest per character (lm-eval's acc_norm). Both picks are stored. The chat "
            "template's final newline stays in the prompt, so each value is a constant per item "
            "below lm-eval's, which moves it into the continuation (same ranking).",
            show_default=shown_default(InferentialConfig, "scoring"),
        ),
    ] = None,
    repeats: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Evaluate every item this many times, each with its own sampling seed.",
            show_default=shown_default(InferentialConfig, "repeats"),
        ),
    ] = None,
    heldout_by: Annotated[
        Literal["rules", "composition"] | None,
        typer.Option(
            "--heldout-by",
            help="stringgame: ask only about the IRFT held-out rules of `train data --seed "
            "SEED` (same --seed): rules (held-out rules; their conditions and outputs occur in "
            "training rules) or composition (conditions and outputs never in training).",
            show_default=False,
        ),
    ] = None,
    prompts: Annotated[
        Literal["rulebench", "upstream"] | None,
        typer.Option(
            "--prompts",
            help="Whose prompt text: rulebench's own wording (default) or the exact text "
            "RuleBench's released code sends, built by your clone of "
            "forangel2014's llm-rule-following at run time (official datasets only); only "
            "upstream's text makes numbers comparable with the paper's tables.",
            show_default=False,
        ),
    ] = None,
    upstream: Annotated[
        Path | None,
        typer.Option(
            "--upstream",
            metavar="PATH",
            help="Your clone of forangel2014's llm-rule-following (its root or its processor.py); "
            "default: the clone holding --data-root. Read only with --prompts upstream; its "
            "commit is recorded with the run.",
            show_default=False,
        ),
    ] = None,
    resample: Annotated[
        Literal["off", "upstream"] | None,
        typer.Option(
            "--resample",
            help="upstream: ask a ulogic, ulogic-cf or theoremQA item again while its reply "
            "lacks upstream's answer line (up to 5 requests, the later ones at temperature 0.5, "
            "top_p 1; the last reply is scored), as upstream's vLLM client does for open "
            "models; off: one request. Default: upstream with --prompts upstream, else off.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Inferential rule-following: questions with if-then rules, one of which applies.

    Default: the generated tasks, few rules (golden + 2 noise), natural language
    and direct answers with short replies (longer with CoT); each default is shown
    below. The full paper grid is --grid paper.
    """
    from rulebench.inferential.settings import Grid
    from rulebench.inferential.task import InferentialConfig

    if grid is not None:
        _refuse_grid_options(ctx)
    chosen: dict[str, object] = {}  # what is not given is the Grid's default
    if quantity:
        chosen["quantities"] = _choices("--quantity", quantity, get_args(Quantity))
    if form:
        chosen["forms"] = _choices("--form", form, get_args(RuleForm))
    if cot is not None:
        chosen["cot"] = _TOGGLE[cot]
    if counterfactual is not None:
        chosen["counterfactual"] = _TOGGLE[counterfactual]
    task_grid = typed_config(
        Grid,
        **chosen,
        **opt.given_only(shots=shots, layout=layout),
        cite_rule=cite_rule,
        seed=run.seed,
    )
    config = typed_config(
        InferentialConfig,
        **({"tasks": tuple(task)} if task else {}),
        per_group=_per_group(per_group, samples, deprecated_n),
        seed=run.seed,
        data_root=str(data_root.resolve()) if data_root else None,
        grid=task_grid,
        design="paper" if grid else "grid",
        **opt.given_only(extract=extract, scoring=scoring, repeats=repeats, resample=resample),
        heldout_by=heldout_by,
        **_wording(prompts, upstream),
    )
    run_task("inferential", config, run)


def _wording(prompts: str | None, upstream: Path | None) -> dict[str, object]:
    """The config's wording fields for the options given (none: the config's default)."""
    fields: dict[str, object] = {}
    if prompts is not None:
        fields["prompts"] = prompts
    if upstream is not None:
        fields["upstream"] = str(upstream.resolve())
    return fields


def _choices(option: str, given: list[str], allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The values of a repeatable option, each one of `allowed` (typer has no list of choices)."""
    from rulebench.core.errors import ConfigError

    for value in given:
        if value not in allowed:
            raise ConfigError(f"{option} {value!r} is not one of {', '.join(allowed)}")
    return tuple(given)


def _per_group(given: int | None, samples: int | None, deprecated_n: int | None) -> int | None:
    """--per-group, or one of its old spellings (--samples; --n, too like -n, which is --limit)."""
    value = pick_renamed(given, samples, new="--per-group", old="--samples")
    return pick_renamed(value, deprecated_n, new="--per-group", old="--n")


def _refuse_grid_options(ctx: typer.Context) -> None:
    """--grid paper decides the settings itself: never silently drop what the user asked for."""
    from rulebench.core.errors import ConfigError

    given = opt.given_flags(ctx, _GRID_OPTIONS)
    if given:
        raise ConfigError(
            f"--grid paper sets the experiment settings itself; drop {', '.join(given)} "
            "(or leave out --grid paper to choose settings yourself)"
        )
