"""`rulebench train data`: IRFT data from the rule generators (StringGame, or in-domain)."""

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.config_defaults import shown_default
from rulebench.cli.console import err, out
from rulebench.cli.option_stack import with_options
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, study_options
from rulebench.cli.train_signals import data_stopped_by_signal
from rulebench.train.examples import DataConfig
from rulebench.train.in_domain import InDomainConfig


@with_options(study=study_options(has_store=False))
def data(
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Folder to write (new or empty).", show_default=False),
    ],
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            help="Training examples; with --in-domain a cap on all examples, a seeded sample "
            "(there: all unless given).",
            show_default=shown_default(DataConfig, "limit"),
        ),
    ] = None,
    size: Annotated[int | None, typer.Option(hidden=True)] = None,
    per_group: Annotated[
        int | None,
        typer.Option(
            help="Examples per test split (in-distribution, held-out rules).",
            show_default=shown_default(DataConfig, "per_group"),
        ),
    ] = None,
    test_size: Annotated[int | None, typer.Option(hidden=True)] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of strings, noise rules, orders, held-out.",
            show_default=shown_default(DataConfig, "seed"),
        ),
    ] = None,
    form: Annotated[
        str | None,
        typer.Option(
            metavar="<nl|fol>",
            help="Rule form in the prompts: nl or fol.",
            show_default=shown_default(DataConfig, "form"),
        ),
    ] = None,
    heldout_fraction: Annotated[
        float | None,
        typer.Option(
            help="Share of the rule library kept out of training (0 to 0.9).",
            show_default=shown_default(DataConfig, "heldout_fraction"),
        ),
    ] = None,
    heldout_by: Annotated[
        str | None,
        typer.Option(
            metavar="<rules|composition>",
            help="How the held-out split is held out: rules (held-out rules may reuse "
            "training rules' conditions and outputs) or composition (their conditions and "
            "outputs occur in no training rule; rules mixing both are left out).",
            show_default=shown_default(DataConfig, "heldout_by"),
        ),
    ] = None,
    in_domain: Annotated[
        bool,
        typer.Option(
            "--in-domain",
            help="Benchmark prompts (golden and few rules) from the kinship generator's train "
            "split and, with --data-root, official train files; test questions dropped.",
        ),
    ] = False,
    data_root: Annotated[
        Path | None,
        typer.Option(
            help="--in-domain: the release's data folder, <clone>/dataset (holds clutrr/, ...).",
            show_default=False,
        ),
    ] = None,
    task: Annotated[
        list[str] | None,
        typer.Option(
            "--task",
            "-t",
            help="--in-domain: official dataset to read, repeatable.",
            show_default=shown_default(InDomainConfig, "tasks"),
        ),
    ] = None,
    dataset: Annotated[list[str] | None, typer.Option("--dataset", hidden=True)] = None,
    kinship_size: Annotated[
        int | None,
        typer.Option(
            help="--in-domain: generated kinship train samples (0: none).",
            show_default=shown_default(InDomainConfig, "kinship_size"),
        ),
    ] = None,
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
    from rulebench.core.errors import ConfigError

    limit = pick_renamed(limit, size, new="--limit", old="--size")
    per_group = pick_renamed(per_group, test_size, new="--per-group", old="--test-size")
    tasks = pick_renamed(task or None, dataset or None, new="--task", old="--dataset")
    shared: dict[str, object] = {"limit": limit, "seed": seed, "form": form}
    if in_domain:
        if per_group is not None or heldout_fraction is not None or heldout_by is not None:
            raise ConfigError(
                "train data: --per-group, --heldout-fraction and --heldout-by are StringGame "
                "options; in-domain data has a train split only"
            )
        root = data_root.resolve() if data_root else None  # as the manifest records it
        options = shared | {"kinship_size": kinship_size, "data_root": root}
        options["tasks"] = tuple(tasks) if tasks else None
        _in_domain_data(output, _given(options), overwrite, study.as_json)
        return
    if data_root is not None or tasks or kinship_size is not None:
        raise ConfigError("train data: --data-root, --task and --kinship-size need --in-domain")
    values = shared | {"per_group": per_group}
    values |= {"heldout_fraction": heldout_fraction, "heldout_by": heldout_by}
    _stringgame_data(output, _given(values), overwrite, study.as_json)


def _given(values: Mapping[str, object]) -> dict[str, object]:
    """The options the user gave: the config fills in the rest with its defaults."""
    return {name: value for name, value in values.items() if value is not None}


def _stringgame_data(
    output: Path, values: dict[str, object], overwrite: bool, json_output: bool
) -> None:
    from rulebench.core.validation import validate_into
    from rulebench.report.untrusted import safe_text
    from rulebench.train.data import claim_folder, write_dataset

    config = validate_into(DataConfig, values, "train data")
    claim_folder(output, overwrite)  # refused before the bar is drawn
    splits = 2 if config.heldout_fraction > 0 else 1
    total = config.limit + splits * config.per_group
    with data_stopped_by_signal(output), _bar("building examples", total) as advance:
        manifest = write_dataset(config, output, on_example=lambda _: advance())
    if json_output:
        out.print_json(data={"folder": str(output), **manifest.model_dump(mode="json")})
        return
    out.print(safe_text(f"IRFT data in {output}"))
    for split, count in manifest.counts.items():
        out.print(safe_text(f"  {split:8} {count:>7} examples"))
    out.print(
        safe_text(
            f"  rules: {len(manifest.train_rules)} for training, "
            f"{len(manifest.heldout_rules)} held out by {config.heldout_by}"
            + (f", {len(manifest.left_out_rules)} left out" if manifest.left_out_rules else "")
            + f"; data hash {manifest.data_hash[:16]}"
        )
    )


def _in_domain_data(
    output: Path, values: dict[str, object], overwrite: bool, json_output: bool
) -> None:
    from rulebench.core.validation import validate_into
    from rulebench.report.untrusted import safe_text
    from rulebench.train.data import claim_folder, write_in_domain
    from rulebench.train.in_domain import check_sources

    config = validate_into(InDomainConfig, values, "train data --in-domain")
    check_sources(config)  # a missing dataset folder is refused before the bar is drawn
    claim_folder(output, overwrite)
    with data_stopped_by_signal(output), _bar("building in-domain examples", None) as advance:
        manifest = write_in_domain(config, output, on_example=lambda _: advance())
    if json_output:
        out.print_json(data={"folder": str(output), **manifest.model_dump(mode="json")})
        return
    assert manifest.in_domain is not None  # write_in_domain always records it
    out.print(safe_text(f"IRFT in-domain data in {output}"))
    for source, count in manifest.in_domain.sources.items():
        out.print(
            safe_text(
                f"  {source:8} {count.examples:>7} examples; {count.dropped} of "
                f"{count.samples} train samples dropped as test overlap"
            )
        )
    total = manifest.counts["train"]
    out.print(safe_text(f"  train    {total:>7} examples; data hash {manifest.data_hash[:16]}"))


@contextmanager
def _bar(description: str, total: int | None) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr (None: total unknown); yields the function that advances it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = ("[bold]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=False) as progress:
        task = progress.add_task(description, total=total)
        yield lambda: progress.advance(task)
