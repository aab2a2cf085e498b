"""`rulebench run inferential`: the RuleBench grid on a model (any subset of it)."""

import inspect
from typing import Annotated, Any, get_args

import typer
from pydantic import BaseModel

from rulebench.cli import options as opt
from rulebench.cli.execute import run_task
from rulebench.cli.field_options import field_bounds, field_keyword
from rulebench.cli.option_stack import OptionBlock, keyword, with_options
from rulebench.cli.renamed_options import pick_renamed
from rulebench.cli.run_terms import option_name
from rulebench.cli.setting_options import setting_option
from rulebench.core.field_defaults import shown_default
from rulebench.core.rules import RuleForm
from rulebench.inferential.run_options import LIMIT_HELP, InferentialOptions, toggle_default
from rulebench.inferential.settings import Grid, Quantity
from rulebench.inferential.task import InferentialConfig


def _option(
    field: str, *flags: str, default_of: type[BaseModel] | None = None, **option: Any
) -> inspect.Parameter:
    """The option filling `InferentialOptions.field`; --help shows `default_of`'s default."""
    option.setdefault("shown", shown_default(default_of, field) if default_of else False)
    return field_keyword(InferentialOptions, field, *flags, **option)


def _old_spelling(name: str) -> inspect.Parameter:
    """A hidden old spelling of --per-group, still accepted with a warning."""
    flag = typer.Option(f"--{name}", hidden=True, **field_bounds(InferentialOptions, "per_group"))
    return keyword(name, Annotated[int | None, flag], None)


def _choices(values: tuple[str, ...]) -> str:
    return f"<{'|'.join(values)}>"


OPTIONS = (
    _option("tasks", "--task", "-t", default_of=InferentialConfig, kind=list[str] | None),
    _option("per_group"),
    _old_spelling("samples"),
    _old_spelling("n"),
    _option("data_root"),
    _option(
        "quantities",
        "--quantity",
        "-q",
        default_of=Grid,
        kind=list[str] | None,
        metavar=_choices(get_args(Quantity)),
    ),
    _option(
        "forms",
        "--form",
        default_of=Grid,
        kind=list[str] | None,
        metavar=_choices(get_args(RuleForm)),
    ),
    _option("cot", shown=toggle_default("cot")),
    _option("counterfactual", shown=toggle_default("counterfactual")),
    _option("shots", default_of=Grid),
    _option("layout", default_of=Grid),
    _option("cite_rule"),
    _option("grid"),
    _option("extract", default_of=InferentialConfig),
    _option("scoring", default_of=InferentialConfig),
    _option("repeats", default_of=InferentialConfig),
    _option("heldout_by"),
    _option("prompts"),
    _option("upstream", metavar="PATH"),
    _option("resample"),
)
"""The command's own options in --help order; each but the old spellings of --per-group fills
the `InferentialOptions` field of its name."""


@opt.run_command(limit=setting_option("limit", help_text=LIMIT_HELP))
@with_options(given=OptionBlock(OPTIONS, lambda values: opt.given_only(**values)))
def inferential(run: opt.RunOptions, given: dict[str, Any]) -> None:
    """Inferential rule-following: questions with if-then rules, one of which applies.

    Default: the generated tasks, few rules (golden + 2 noise), natural language
    and direct answers with short replies (longer with CoT); each default is shown
    below. The full paper grid is --grid paper.
    """
    from rulebench.inferential.run_options import prepare_inferential

    count = pick_renamed(
        given.pop("per_group", None), given.pop("samples", None), new="--per-group", old="--samples"
    )
    count = pick_renamed(count, given.pop("n", None), new="--per-group", old="--n")
    options = InferentialOptions(**given, per_group=count, seed=run.seed)
    run_task("inferential", prepare_inferential(options, option_name), run)
