"""The cases a scenarios run plays, which suite each comes from, and each suite's size.

A front end loads them once (`run_options.prepare_scenarios`) and hands them to what it prints
(replay notes, sizes, the run line: `run_notes`) and on, held by the config
(`ScenarioConfig.holding`), to the engine's steps that make the spec (the stored sizes and
protocol, the reply limit). The runner loads them again from the stored config, as a resumed
run does; the suites themselves are parsed once per process (`suites.read_once`).
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Literal, NamedTuple, Protocol

from rulebench.core.cases import TestCase
from rulebench.core.errors import ConfigError
from rulebench.scenarios.base import Version
from rulebench.scenarios.registry import scenario_class
from rulebench.scenarios.sizes import Size, size_of


class CaseChoice(Protocol):
    """What of a run's config picks its cases (`ScenarioConfig` is one; `task.CASE_FIELDS`)."""

    @property
    def suites(self) -> tuple[str, ...]:
        """Generated suites' names and files or folders of cases, in order."""

    @property
    def scenarios(self) -> tuple[str, ...]:
        """Only these scenarios (empty: all)."""

    @property
    def per_group(self) -> int | None:
        """Cases kept per behavior (None: every case)."""

    @property
    def cap_files(self) -> bool:
        """Whether `per_group` caps files too (runs stored under the old field name)."""

    @property
    def seed(self) -> int:
        """The generated suites' seed."""

    @property
    def version(self) -> Version:
        """The benchmark version files are read as."""


GeneratedSuite = Literal["benign", "basic", "redteam"]
GENERATED_SUITES: tuple[GeneratedSuite, ...] = ("benign", "basic", "redteam")


class RunCases(NamedTuple):
    """The cases to play, in order, each with the suite of the config it comes from."""

    cases: tuple[TestCase, ...]
    suites: tuple[int, ...]
    """`cases[i]` comes from the config's `suites[suites[i]]` (`basic`, a path)."""
    sizes: tuple[Size, ...]
    """Each of the config's suites' size: official when the run plays every case it holds."""


def load_run_cases(config: CaseChoice) -> RunCases:
    """The cases of every suite the config names, filtered by `--scenario` and capped."""
    held: list[TestCase] = []
    entries: list[int] = []
    for index, suite in enumerate(config.suites):
        found = _suite_cases(suite, config)
        held += found
        entries += [index] * len(found)
    if config.scenarios:
        check_selected(held, config)
        chosen = [i for i, case in enumerate(held) if case.scenario in config.scenarios]
        held, entries = [held[i] for i in chosen], [entries[i] for i in chosen]
    kept = kept_indices(held, config.per_group, config.cap_files)
    played = [entries[i] for i in kept]
    sizes = tuple(size_of(entries.count(i), played.count(i)) for i in range(len(config.suites)))
    return RunCases(tuple(held[i] for i in kept), tuple(played), sizes)


def load_cases(config: CaseChoice) -> list[TestCase]:
    """The cases of every suite the config names, filtered and capped."""
    return list(load_run_cases(config).cases)


def _suite_cases(suite: str, config: CaseChoice) -> list[TestCase]:
    from rulebench.scenarios.suites.read_once import generated_cases, suite_path_cases

    if suite in GENERATED_SUITES:
        return generated_cases(suite, config.seed)
    path = Path(suite)
    if not path.exists():
        raise ConfigError(
            f"suite '{suite}' is neither a generated suite ({', '.join(GENERATED_SUITES)}) "
            "nor an existing folder or .jsonl file"
        )
    return suite_path_cases(path, config.version)


def check_selected(cases: Sequence[TestCase], config: CaseChoice) -> None:
    """Every `--scenario` must select a case: a filter matching nothing would run 0 items.

    A v1-only scenario (Hodor) gets its own reason, since no v3 suite can ever hold it.
    """
    for name in config.scenarios:
        scenario_class(name)  # unknown names fail with a did-you-mean
    held = {case.scenario for case in cases}
    missing = [name for name in config.scenarios if name not in held]
    if not missing:
        return
    suites = ", ".join(config.suites)
    found = ", ".join(sorted(held)) or "none"
    reasons = [
        f"{name} is a v1-only scenario: only official v1 test files hold it "
        f"(file names starting with '{name}', e.g. the v1 manual suite's {name}.jsonl); "
        "run them with --suite FILE_OR_FOLDER --version v1"
        for name in missing
        if "v3" not in scenario_class(name).versions
    ]
    raise ConfigError(
        f"--scenario {' --scenario '.join(missing)} selects no test case of "
        f"--suite {suites} (version {config.version}; scenarios there: {found})"
        + "".join(f". {reason}" for reason in reasons)
    )


def cap_per_group(
    cases: Sequence[TestCase], cap: int | None, cap_files: bool = False
) -> list[TestCase]:
    """The first `cap` generated cases of each (suite, behavior), in order.

    A file's cases (they carry their `source`) are all kept unless `cap_files`.
    """
    return [cases[i] for i in kept_indices(cases, cap, cap_files)]


def kept_indices(cases: Sequence[TestCase], cap: int | None, cap_files: bool) -> list[int]:
    """Where the cases `cap_per_group` keeps are, in order."""
    if cap is None:
        return list(range(len(cases)))
    seen: dict[tuple[str, str], int] = {}
    kept = []
    for index, case in enumerate(cases):
        if "source" in case.metadata and not cap_files:
            kept.append(index)
            continue
        key = (case.suite, case.behavior)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= cap:
            kept.append(index)
    return kept
