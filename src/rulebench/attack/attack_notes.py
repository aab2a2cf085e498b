"""What a front end says about an attack: its settings, a shard's share, how it ended.

Composed here so the command line and any other front end print the same lines; each is
plain text (a front end escapes it before rendering).
"""

from collections.abc import Sequence
from pathlib import Path

from rulebench.attack.attack_run import AttackConfig, AttackResult
from rulebench.attack.gcg.config import PRESETS, search_size
from rulebench.attack.target_shards import How, ShardAttack
from rulebench.core.shards import Shard

SHOWN_SUFFIX_CHARS = 40
"""The longest suffix a progress line shows whole; a longer one is cut with "..."."""


def settings_line(config: AttackConfig, is_full: bool) -> str:
    """Every setting of an attack, said before its search starts: what was defaulted shows.

    `is_full`: the paper's search was asked for; else the line says what --full would run.
    """
    gcg = config.gcg
    paper = PRESETS["paper"]
    sizes = (
        ""
        if is_full
        else f" (--full: {paper['num_steps']} steps, {paper['search_width']} candidates, "
        f"top-{paper['topk']})"
    )
    return (
        f"gcg: {config.model} on {config.scenario}/{config.behavior}: {search_size(gcg)}, "
        f"n_replace {gcg.n_replace}, suffix {gcg.optim_str_init!r}, {config.instances} "
        f"instance(s) re-sampled every {config.resample_every or 'never'} step(s), "
        f"{config.heldout} held out, {config.protocol.label()}, seed {gcg.seed}{sizes}"
    )


def shard_line(shard: Shard, held: int, whole: int) -> str:
    """A shard's share: `held` of the `whole` rules named."""
    return f"gcg shard {shard}: {held} of the {whole} rule(s) named fall in this shard"


def target_line(number: int, total: int, config: AttackConfig, how: How) -> str:
    """A shard's next rule: which, and whether it is reused, resumed or new."""
    said = {"reused": " (completed earlier: not run again)", "resumed": " (resuming)"}
    return f"rule {number} of {total}: {config.scenario}/{config.behavior}{said.get(how, '')}"


def attack_heading(attack: ShardAttack) -> str:
    """The line above each of a shard's results: the rule, and how its attack came about."""
    config = attack.result.config
    return f"{config.scenario}/{config.behavior} ({attack.how}):"


def result_lines(result: AttackResult, written: Sequence[Path]) -> list[str]:
    """How an attack ended: its steps, suffix, held-out measures, files and the next command."""
    initial, final = result.initial, result.final
    per_step = "-" if result.seconds_per_step is None else f"{result.seconds_per_step:.2f} s/step"
    return [
        f"run {result.run_id}: {result.state.step} steps ({per_step})",
        f"suffix: {result.suffix!r}",
        f"held-out target loss: {initial.loss:.4f} -> {final.loss:.4f}; targets reproduced "
        f"{initial.reached}/{initial.instances} -> {final.reached}/{final.instances}",
        written_line(written),
        f"next: {suffix_test_command(result)}",
    ]


def finished_line(result: AttackResult) -> str:
    """--resume of a completed attack: it is left as it is; where its suffix is."""
    return (
        f"attack {result.run_id} is finished ({result.state.step} steps): nothing to resume, "
        f"nothing written. Its suffix: {result.suffix!r}; test it with "
        f"`{suffix_test_command(result)}`"
    )


def suffix_test_command(result: AttackResult) -> str:
    """The command that tests an attack's suffix on its scenario."""
    return f"rulebench run scenarios --scenario {result.config.scenario} --suffix {result.run_id}"


def written_line(paths: Sequence[Path]) -> str:
    """The files a command wrote, on one line."""
    return f"written: {', '.join(str(path) for path in paths)}"


def stopped_note(has_begun: bool) -> str:
    """What a stopped attack keeps: its steps so far, once it has begun."""
    return "Steps so far are stored." if has_begun else "No step was stored yet."


def shown_suffix(suffix: str) -> str:
    """A suffix as a progress line shows it: quoted, cut to `SHOWN_SUFFIX_CHARS`."""
    cut = SHOWN_SUFFIX_CHARS - 3
    return repr(suffix if len(suffix) <= SHOWN_SUFFIX_CHARS else suffix[:cut] + "...")


def shard_json(shard: Shard, whole: int, attacks: Sequence[ShardAttack]) -> object:
    """A shard's attacks as --json prints them: the shard, the whole's rule count, each attack."""
    return {
        "shard": str(shard),
        "targets": whole,
        "attacks": [
            {"how": attack.how, **attack.result.model_dump(mode="json")} for attack in attacks
        ],
    }
