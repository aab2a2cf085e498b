"""`rulebench attack gcg`: optimise an adversarial suffix against one scenario rule."""

import inspect
import os
from contextlib import AbstractContextManager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rulebench.attack import attack_notes, attack_options
from rulebench.attack.attack_options import FILLS, AttackOptions
from rulebench.attack.attack_run import finished_attack, resume_attack
from rulebench.attack.gcg.config import SUFFIX_LENGTH
from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_keyword, field_option
from rulebench.cli.option_stack import OptionBlock, with_options
from rulebench.cli.progress import StepBar
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, output_option, study_options
from rulebench.core.field_defaults import shown_default
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.attack.attack_options import PreparedAttack
    from rulebench.attack.attack_run import AttackConfig
    from rulebench.attack.target_shards import How, ShardAttack


FLAGS = {"model": ("--model", "-m")}
"""Flags beyond `--<option>`."""
SHOWN = {"suffix_length": str(SUFFIX_LENGTH)}
"""Defaults --help shows for options that fill no config field."""


def _option(name: str) -> inspect.Parameter:
    """The option filling `AttackOptions.name`: its help its own, else the config field's.

    That config field (`FILLS`) gives its bounds and the default --help shows.
    """
    filled = FILLS.get(name)
    source = None if AttackOptions.model_fields[name].description or filled is None else filled
    shown: str | bool = SHOWN.get(name) or (shown_default(*filled) if filled else False)
    return field_keyword(AttackOptions, name, *FLAGS.get(name, ()), source=source, shown=shown)


OPTIONS = tuple(_option(name) for name in AttackOptions.model_fields if name != "shard")
"""Every option but --shard, in --help order (the fields'), before the study's options."""
ShardOption = Annotated[
    str | None, field_option(AttackOptions, "shard", "--shard", metavar="<I/N>", shown=False)
]


@with_options(
    given=OptionBlock(OPTIONS, dict),
    study=study_options(
        output_option(
            "Folder for suffix.txt, attack.json and the loss curve.",
            "gcg-<run id>/ beside the store",
        )
    ),
)
def gcg(
    given: dict[str, Any], study: StudyOptions = STUDY_DEFAULTS, shard: ShardOption = None
) -> None:
    """Find a suffix that makes the model start its reply with a rule-breaking target.

    Greedy Coordinate Gradient (nanogcg's option names and defaults, with --full)
    on the rule's attack case: the suffix joins the case's first user message; the
    loss is averaged over scenario instances re-sampled every --resample-every
    steps. Every step is stored as a run (`--resume RUN` continues a killed one);
    at the end the initial and final suffix are measured on --heldout unseen
    instances. Test the suffix with `rulebench run scenarios --suffix RUN`.

    With --shard I/N the rules named are split over N shards: this process
    attacks its shard's rules one after another, each a run of its own (the same
    command again reuses completed ones and resumes stopped ones).
    """
    from rulebench.attack.target_shards import ShardAttack
    from rulebench.engine.store.database import Store
    from rulebench.study.gcg_outputs import write_attack_outputs

    options = AttackOptions(**given, shard=shard)
    progress, prepared = _AttackBar(), None
    with Store(study.store) as db, _stopped_by_signal(progress, study.store):
        if (resume := options.resume) is not None:
            attack_options.refuse_options_on_resume(options)
            if (finished := finished_attack(db, resume)) is not None:
                _say(attack_notes.finished_line(finished), soft_wrap=True)
                return
            with progress:
                attacks = [ShardAttack("resumed", resume_attack(resume, db, progress))]
        else:
            if options.scenario is None and shard is None:
                raise typer.BadParameter(attack_options.MISSING_SCENARIO)
            prepared = attack_options.prepare_attack(options, os.environ)
            for note in prepared.notes:
                _say(note)
            progress.is_shard = prepared.shard is not None
            with progress:
                attacks = attack_options.run_prepared(prepared, db, progress)
        folder = partial(attack_options.output_folder, study.output, is_shard=progress.is_shard)
        written = [write_attack_outputs(a.result, db, folder(a.result.run_id)) for a in attacks]
    _show(attacks, written, prepared, study.as_json)


def _say(text: str, soft_wrap: bool = False) -> None:
    """A line on stderr, its text shown as written (never markup)."""
    err.print(safe_text(text), highlight=False, soft_wrap=soft_wrap)


def _show(
    attacks: "list[ShardAttack]",
    written: list[list[Path]],
    prepared: "PreparedAttack | None",
    as_json: bool,
) -> None:
    """Each attack's result (a shard's under its rule), or one attack's or a shard's JSON."""
    shard = None if prepared is None else prepared.shard
    if as_json and prepared is not None and shard is not None:
        out.print_json(data=attack_notes.shard_json(shard, prepared.targets, attacks))
    elif as_json:
        out.print_json(attacks[0].result.model_dump_json())
    else:
        for attack, paths in zip(attacks, written, strict=True):
            if shard is not None:
                out.print(safe_text(attack_notes.attack_heading(attack)), style="bold")
            for line in attack_notes.result_lines(attack.result, paths):
                out.print(safe_text(line), highlight=False, soft_wrap=True)


def _stopped_by_signal(
    progress: "_AttackBar", store: Path | None
) -> "AbstractContextManager[object]":
    """SIGINT or SIGTERM: the step under way is finished and stored, then the attack stops."""
    from rulebench.cli.interrupts import same_command, stopped_by_signal

    def resume() -> str | None:
        if progress.run_id is None:
            return None
        if progress.is_shard:  # the same command reuses finished rules and resumes this one
            return same_command()
        return opt.resume_command(progress.run_id, store, "attack gcg")

    def what_is_kept() -> str:
        return attack_notes.stopped_note(progress.run_id is not None)

    return stopped_by_signal(what_is_kept, resume)


class _AttackBar(StepBar):
    """The search's progress (step, loss, current suffix) as a rich bar on stderr."""

    run_id: str | None = None
    """The attack's run, once it has begun."""
    is_shard: bool = False
    """Attacking a shard's rules (`--shard`), one after another."""

    def target(self, number: int, total: int, config: "AttackConfig", how: "How") -> None:
        """A shard's next rule: which, and whether it is reused, resumed or new."""
        _say(attack_notes.target_line(number, total, config, how))

    def begin(self, run_id: str, total_steps: int, done_steps: int) -> None:
        """The search starts (a resumed one part-way)."""
        self.run_id = run_id
        self.start_steps(f"gcg {run_id}", total_steps, done_steps)

    def update(self, step: int, loss: float, suffix: str) -> None:
        """Move to `step`, showing its loss and suffix."""
        self.show(step, loss, attack_notes.shown_suffix(suffix))
