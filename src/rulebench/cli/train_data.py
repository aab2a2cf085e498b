"""`rulebench train data`: IRFT data from the rule generators (StringGame, or in-domain)."""

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_keyword
from rulebench.cli.option_stack import OptionBlock, with_options
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, study_options
from rulebench.cli.train_signals import data_stopped_by_signal
from rulebench.core.field_defaults import shown_default
from rulebench.report.untrusted import safe_text
from rulebench.train.data_options import DEFAULTS_FROM, DataOptions

FLAGS = {"limit": ("--limit", "-n"), "tasks": ("--task", "-t")}
METAVARS = {"form": "<nl|fol>", "heldout_by": "<rules|composition>"}
KINDS = {"tasks": list[str] | None}


def _option(name: str) -> inspect.Parameter:
    """The option filling `DataOptions.name`, showing the default of the config it fills."""
    model = DEFAULTS_FROM.get(name)
    shown = shown_default(model, name) if model else False
    flags, metavar = FLAGS.get(name, ()), METAVARS.get(name)
    return field_keyword(
        DataOptions, name, *flags, kind=KINDS.get(name), metavar=metavar, shown=shown
    )


OPTIONS = tuple(_option(name) for name in DataOptions.model_fields)
OldOption = Annotated[int | None, typer.Option(hidden=True)]


@with_options(given=OptionBlock(OPTIONS, dict), study=study_options(has_store=False))
def data(
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Folder to write (new or empty).", show_default=False),
    ],
    given: dict[str, Any],
    size: OldOption = None,
    test_size: OldOption = None,
    dataset: Annotated[list[str] | None, typer.Option("--dataset", hidden=True)] = None,
    overwrite: opt.OverwriteDataOption = False,
    study: StudyOptions = STUDY_DEFAULTS,
) -> None:
    """Write IRFT SFT data: StringGame splits, or with --in-domain the benchmark's own tasks.

    StringGame: each example lists one input string, its golden rule and 0-3 rules
    that do not apply, in a seeded order, with the target "Based on the j-th rule,
    the answer is X."; the oracle checks every example before writing. --in-domain
    (paper appendix H): each train sample gives a Golden Rule and a Few Rule
    example in the benchmark's zero-shot prompt, answered in the task's format;
    train samples whose question is asked in the evaluated test split are dropped
    and counted.
    """
    from rulebench.cli.renamed_options import pick_renamed
    from rulebench.train.data import claim_folder
    from rulebench.train.data_notes import written_lines
    from rulebench.train.data_options import prepare_data, write_data

    old_spellings = {"limit": ("--size", size), "per_group": ("--test-size", test_size)}
    for name, (spelling, value) in old_spellings.items():
        given[name] = pick_renamed(given[name], value, new=_flag(name), old=spelling)
    tasks = pick_renamed(given.pop("tasks") or None, dataset or None, new="--task", old="--dataset")
    prepared = prepare_data(DataOptions(**given, tasks=tuple(tasks or ())))
    claim_folder(output, overwrite)  # refused before the bar is drawn
    with data_stopped_by_signal(output), _bar(prepared.bar_label, prepared.total) as advance:
        manifest = write_data(prepared.config, output, on_example=lambda _: advance())
    if study.as_json:
        out.print_json(data={"folder": str(output), **manifest.model_dump(mode="json")})
        return
    for line in written_lines(manifest, output):
        out.print(safe_text(line))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


@contextmanager
def _bar(description: str, total: int | None) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr (None: total unknown); yields the function that advances it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = ("[bold]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=False) as progress:
        task = progress.add_task(description, total=total)
        yield lambda: progress.advance(task)
