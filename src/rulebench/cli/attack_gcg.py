"""`rulebench attack gcg`: optimise an adversarial suffix against one scenario rule."""

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.progress import StepBar

if TYPE_CHECKING:
    from rulebench.attack.attack_run import AttackConfig, AttackResult

# CPU-sized defaults: nanogcg's 250 steps with an eighth of its candidates, ~3 s a step for the
# embedded model on 2 cores (~12 min); --full is the paper's search (500 steps, 512 from top-256).
QUICK = {"num_steps": 250, "search_width": 64, "topk": 64}
FULL = {"num_steps": 500, "search_width": 512, "topk": 256}
SUFFIX_LENGTH = 20


def gcg(
    ctx: typer.Context,
    scenario: Annotated[
        str | None,
        typer.Option(
            help="Scenario to attack (`rulebench list gcg-targets` shows each rule's target).",
            show_default=False,
        ),
    ] = None,
    rule: Annotated[
        str | None,
        typer.Option(
            help="The rule (behavior) to break; needed where the scenario has several.",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        str,
        typer.Option(
            "--model", "-m", help="hf/<folder, .gguf or cached hub id>: GCG needs gradients."
        ),
    ] = "hf/SmolLM2-135M-Instruct",
    full: Annotated[
        bool,
        typer.Option(
            "--full", help="The paper's search: 500 steps, 512 candidates from the top 256."
        ),
    ] = False,
    steps: Annotated[
        int | None,
        typer.Option(min=1, help=f"Steps (default {QUICK['num_steps']}).", show_default=False),
    ] = None,
    search_width: Annotated[
        int | None,
        typer.Option(
            min=1,
            help=f"Candidates per step (default {QUICK['search_width']}).",
            show_default=False,
        ),
    ] = None,
    topk: Annotated[
        int | None,
        typer.Option(
            min=1,
            help=f"Substitutions per suffix position (default {QUICK['topk']}).",
            show_default=False,
        ),
    ] = None,
    suffix_length: Annotated[
        int | None,
        typer.Option(
            min=1,
            help=f"Tokens of the initial suffix ('x x x ...'; default {SUFFIX_LENGTH}).",
            show_default=False,
        ),
    ] = None,
    init: Annotated[
        str | None,
        typer.Option(
            help="The initial suffix itself (instead of --suffix-length x's).", show_default=False
        ),
    ] = None,
    instances: Annotated[
        int, typer.Option(min=1, help="Scenario instances averaged at each step.")
    ] = 1,
    resample_every: Annotated[
        int,
        typer.Option(min=0, help="Steps between fresh scenario instances (0: never re-sample)."),
    ] = 1,
    heldout: Annotated[
        int,
        typer.Option(min=1, help="Unseen instances measured with the initial and final suffix."),
    ] = 8,
    placement: Annotated[
        Literal["user", "system"],
        typer.Option(help="Instruction placement; match the `run scenarios` you will test on."),
    ] = "user",
    no_reminders: Annotated[
        bool, typer.Option("--no-reminders", help="Drop the precedence reminders.")
    ] = False,
    gcg_config: Annotated[
        Path | None,
        typer.Option(
            help="JSON file of GCG options under nanogcg's names (num_steps, "
            "search_width, topk, n_replace, buffer_size, use_mellowmax, early_stop, ...); "
            "the options above override it.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seeds candidate sampling and instances (default 0).", show_default=False
        ),
    ] = None,
    device: Annotated[
        Literal["auto", "cpu", "cuda", "mps"], typer.Option(help="Where the model runs.")
    ] = "auto",
    dtype: Annotated[
        Literal["auto", "float32", "bfloat16", "float16"],
        typer.Option(help="Weights' dtype (auto: float32 on CPU)."),
    ] = "auto",
    resume: Annotated[
        str | None,
        typer.Option(
            help="Continue a stopped attack (run id) from its last stored step; other options "
            "are the run's own.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Folder for suffix.txt, attack.json and the loss curve. Default: "
            "gcg-<run id>/ beside the store.",
            show_default=False,
        ),
    ] = None,
    store: opt.StoreOption = None,
    json_output: opt.JsonOption = False,
) -> None:
    """Find a suffix that makes the model start its reply with a rule-breaking target.

    Greedy Coordinate Gradient (nanogcg's option names and defaults, with --full) on the
    rule's attack case: the suffix joins the case's first user message; the loss is averaged
    over scenario instances re-sampled every --resample-every steps. Every step is stored as a
    run (`--resume RUN` continues a killed one); at the end the initial and final suffix are
    measured on --heldout unseen instances. Test the suffix with `rulebench run scenarios
    --suffix RUN`.
    """
    from rulebench.attack.attack_run import (
        attack_config,
        finished_attack,
        resume_attack,
        run_attack,
    )
    from rulebench.attack.gcg_config import GcgConfig
    from rulebench.attack.stored import stored_states
    from rulebench.core.validation import validate_into
    from rulebench.engine.store import Store
    from rulebench.scenarios.protocol import Protocol

    progress = _AttackBar()
    with Store(store) as db, _stopped_by_signal(progress, store):
        if resume is not None:
            _refuse_settings_on_resume(ctx)
            if (finished := finished_attack(db, resume)) is not None:
                _say_finished(finished)
                return
            with progress:
                result = resume_attack(resume, db, progress)
        else:
            if scenario is None:
                raise typer.BadParameter("give --scenario (or --resume RUN)")
            flags = {"num_steps": steps, "search_width": search_width, "topk": topk, "seed": seed}
            gcg_values = _gcg_values(gcg_config, full, flags)
            gcg_values["optim_str_init"] = _initial_suffix(gcg_values, suffix_length, init)
            config = attack_config(
                model, scenario, rule,
                gcg=validate_into(GcgConfig, gcg_values, "gcg options"),
                protocol=Protocol(placement=placement, reminders=not no_reminders),
                instances=instances, resample_every=resample_every, heldout=heldout,
                device=device, dtype=dtype,
            )  # fmt: skip
            _print_settings(config, full)
            with progress:
                result = run_attack(config, db, progress)
        losses = [[float(state.step), state.loss] for state in stored_states(db, result.run_id)]
        written = _write_outputs(result, losses, output or db.path.parent / f"gcg-{result.run_id}")
    if json_output:
        out.print_json(result.model_dump_json())
        return
    _print_result(result, written)


def _stopped_by_signal(
    progress: "_AttackBar", store: Path | None
) -> "AbstractContextManager[object]":
    """SIGINT or SIGTERM: the step under way is finished and stored, then the attack stops."""
    from rulebench.cli.interrupts import stopped_by_signal

    def what_is_kept() -> str:
        if progress.run_id is None:
            return "No step was stored yet."
        return "Steps so far are stored."

    def resume() -> str | None:
        if progress.run_id is None:
            return None
        return opt.resume_command(progress.run_id, store, "attack gcg")

    return stopped_by_signal(what_is_kept, resume)


def _say_finished(result: "AttackResult") -> None:
    """--resume of a completed attack: it is left as it is; say where its suffix is."""
    from rulebench.report.untrusted import safe_text

    err.print(
        safe_text(
            f"attack {result.run_id} is finished ({result.state.step} steps): nothing to "
            f"resume, nothing written. Its suffix: {result.suffix!r}; test it with `rulebench "
            f"run scenarios --scenario {result.config.scenario} --suffix {result.run_id}`"
        ),
        highlight=False,
        soft_wrap=True,
    )


_OWN_OPTIONS = ("resume", "output", "store", "json_output")
"""Options that do not define an attack: the only ones --resume takes."""


def _refuse_settings_on_resume(ctx: typer.Context) -> None:
    """--resume continues a run with its stored settings: a changed one would be ignored."""
    from rulebench.core.errors import ConfigError

    given = opt.given_flags(ctx, (name for name in ctx.params if name not in _OWN_OPTIONS))
    if given:
        raise ConfigError(
            f"--resume continues the attack with its own stored settings: drop "
            f"{', '.join(given)} (or start a new attack without --resume)"
        )


def _gcg_values(file: Path | None, full: bool, flags: dict[str, int | None]) -> dict[str, object]:
    """GCG options: the defaults (quick or --full), then the file's, then the flags given."""
    values: dict[str, object] = dict(FULL if full else QUICK)
    if file is not None:
        values |= _read_gcg_file(file)  # unknown names fail in GcgConfig, with their name
    return values | {key: value for key, value in flags.items() if value is not None}


def _initial_suffix(values: dict[str, object], length: int | None, init: str | None) -> object:
    """--init, else --suffix-length x's, else the file's optim_str_init, else 20 x's."""
    if init is not None:
        return init
    if length is not None:
        return " ".join(["x"] * length)
    return values.get("optim_str_init", " ".join(["x"] * SUFFIX_LENGTH))


def _read_gcg_file(path: Path) -> dict[str, object]:
    """A nanogcg-style options file: one JSON object."""
    import json

    from rulebench.core.errors import ConfigError

    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--gcg-config {path}: cannot read it ({exc})") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"--gcg-config {path}: expected a JSON object of GCG options")
    return loaded


def _print_settings(config: "AttackConfig", full: bool) -> None:
    """Every setting on stderr before the search starts: what was defaulted is visible."""
    from rulebench.report.untrusted import safe_text

    gcg = config.gcg
    sizes = "" if full else " (--full: 500 steps, 512 candidates, top-256)"
    err.print(
        safe_text(
            f"gcg: {config.model} on {config.scenario}/{config.behavior}: {gcg.num_steps} steps, "
            f"{gcg.search_width} candidates from the top {gcg.topk}, n_replace {gcg.n_replace}, "
            f"suffix {gcg.optim_str_init!r}, {config.instances} instance(s) re-sampled every "
            f"{config.resample_every or 'never'} step(s), {config.heldout} held out, "
            f"{config.protocol.label()}, seed {gcg.seed}{sizes}"
        ),
        highlight=False,
    )


def _write_outputs(result: "AttackResult", losses: list[list[float]], folder: Path) -> list[Path]:
    """suffix.txt (what `run scenarios --suffix` reads), attack.json and the loss curve."""
    from rulebench.report.plots import loss_curve

    folder.mkdir(parents=True, exist_ok=True)
    suffix_file = folder / "suffix.txt"
    suffix_file.write_text(result.suffix + "\n", encoding="utf-8")
    summary = folder / "attack.json"
    summary.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    config = result.config
    title = f"GCG on {config.model}: {config.scenario}/{config.behavior}"
    labels = ("step", "target loss (this step's instances)")
    return [suffix_file, summary, *loss_curve(losses, title, folder / "loss-curve", labels, 10)]


def _print_result(result: "AttackResult", written: list[Path]) -> None:
    from rulebench.report.untrusted import safe_text

    initial, final = result.initial, result.final
    per_step = "-" if result.seconds_per_step is None else f"{result.seconds_per_step:.2f} s/step"
    lines = [
        f"run {result.run_id}: {result.state.step} steps ({per_step})",
        f"suffix: {result.suffix!r}",
        f"held-out target loss: {initial.loss:.4f} -> {final.loss:.4f}; targets reproduced "
        f"{initial.reached}/{initial.instances} -> {final.reached}/{final.instances}",
        f"written: {', '.join(str(path) for path in written)}",
        f"next: rulebench run scenarios --scenario {result.config.scenario} --suffix "
        f"{result.run_id}",
    ]
    for line in lines:
        out.print(safe_text(line), highlight=False, soft_wrap=True)


class _AttackBar(StepBar):
    """The search's progress (step, loss, current suffix) as a rich bar on stderr."""

    run_id: str | None = None
    """The attack's run, once it has begun."""

    def begin(self, run_id: str, total_steps: int, done_steps: int) -> None:
        """The search starts (a resumed one part-way)."""
        self.run_id = run_id
        self.start_steps(f"gcg {run_id}", total_steps, done_steps)

    def update(self, step: int, loss: float, suffix: str) -> None:
        """Move to `step`, showing its loss and suffix."""
        self.show(step, loss, repr(suffix if len(suffix) <= 40 else suffix[:37] + "..."))
