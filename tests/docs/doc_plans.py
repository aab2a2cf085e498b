"""How the suite runs a documented command: stand-in models, tiny sizes, and the steps before it.

A command is run as the page writes it, except that a model the suite cannot reach (an API, a
server, a GPU model) becomes a scripted one, sizes shrink to a few items, `/tmp/` moves into the
test's folder, and what the command reads (a run id such as RUN_A, a file an earlier command
saved, a file the docs show) is made first by the steps the plan puts before it.
"""

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from tests.docs.doc_blocks import ROOT, DocCommand, PageShell, doc_files
from tests.docs.doc_rewrite import (
    MODEL_OPTIONS,
    OUTPUT_OPTIONS,
    PATH_OPTIONS,
    RUN_PLACEHOLDER,
    STAND_IN_MODELS,
    CannotRun,
    option_values,
    rewrite,
    subcommand,
    tiny_experiment,
)

UNRUNNABLE_FILE = Path(__file__).with_name("unrunnable_commands.toml")
PLAY_INPUT = "Repeat after me: the secret\n"
"""What `rulebench play` reads when the page pipes nothing in: one turn, then end of input."""
STAND_INS: dict[str, tuple[str, ...]] = {
    "my-cases": ("play", "Encryption", "-m", "scripted/echo", "--save", "my-cases/played.jsonl"),
}
"""Folders the pages fill by hand (in the playground), filled here by a played case."""
JUDGED_RUN: tuple[str, ...] = ("rulebench", "run", "scenarios", "--scenario", "ForbiddenWord")
JUDGED_RUN += ("-s", "basic", "-s", "redteam", "--per-group", "5", "-m", "scripted/echo")
"""The run a `run judge --from-run` reads: echo repeats the forbidden word in most of these
cases, not all, so a rule has both passing and failing exchanges to judge."""
COPIES = {"my-tasks": ("examples/plugin/src/rulebench_example/recycling.py", "data")}
"""Folders a page asks the reader to make by copying: what goes in them, from the checkout."""


@dataclass(frozen=True)
class Step:
    """One `rulebench` command line the test runs."""

    words: tuple[str, ...]
    """The words after `rulebench`; run ids still as the page's placeholders."""
    stdin: str = ""
    stdout: str | None = None
    makes: tuple[str, ...] = ()
    """Placeholders named by the runs this step creates, in order; a step whose placeholders are
    all known already is skipped (the second model of a pair when the first step made both)."""


@dataclass(frozen=True)
class Plan:
    """The steps that run one documented command, the command itself last."""

    command: DocCommand
    steps: tuple[Step, ...]
    files: dict[str, str] = field(default_factory=dict)
    """Files to write into the test's folder first: relative path -> text."""
    folders: tuple[str, ...] = ()
    """Folders to make in the test's folder first (where a stand-in saves)."""
    copies: dict[str, str] = field(default_factory=dict)
    """Paths to copy from the checkout first: relative destination -> checkout path."""
    plugin: bool = False
    """Whether the page installed the example plugin (`pip install ./examples/plugin`)."""
    store: str | None = None
    """The store the command names with --store, which its runs' producers must share."""


@dataclass(frozen=True)
class Unrunnable:
    """A line of unrunnable_commands.toml."""

    pattern: re.Pattern[str]
    reason: str
    page: str | None


def load_unrunnable(path: Path = UNRUNNABLE_FILE) -> list[Unrunnable]:
    """The listed commands the suite cannot run, with their reasons."""
    entries = tomllib.loads(path.read_text(encoding="utf-8"))["command"]
    return [Unrunnable(re.compile(e["pattern"]), e["reason"], e.get("page")) for e in entries]


def unrunnable_reason(command: DocCommand, listed: list[Unrunnable]) -> str | None:
    """Why the list says the command cannot run, or None when it is not listed."""
    for entry in listed:
        if entry.page in (None, command.page) and entry.pattern.search(command.text):
            return entry.reason
    return None


def plan(command: DocCommand, page: PageShell, listed: list[Unrunnable], depth: int = 0) -> Plan:
    """The steps that run `command`, or CannotRun saying what the suite lacks for it."""
    if depth > 3:
        raise CannotRun("its run ids come from commands that need run ids themselves, too deep")
    words = rewrite(command.words, producer=depth > 0)
    made = Plan(command, (), store=next(iter(option_values(words, "--store")), None))
    made = _with_runs(made, words, page, listed, depth)
    made, words = _with_inputs(made, words, page, listed, depth)
    plugin = any(line < command.line and "examples/plugin" in t for line, t in page.installs)
    stdin = command.stdin or (PLAY_INPUT if subcommand(words)[0] == "play" else "")
    return replace(made, steps=(*made.steps, Step(words, stdin, command.stdout)), plugin=plugin)


def _merged(base: Plan, other: Plan, makes: tuple[str, ...] = ()) -> Plan:
    """`base` with `other`'s steps, files and copies before its own (the last step making ids)."""
    steps = [step for step in other.steps[:-1] if step not in base.steps]
    steps.append(replace(other.steps[-1], makes=makes))
    return replace(
        base,
        steps=(*base.steps, *steps),
        files=base.files | other.files,
        copies=base.copies | other.copies,
        folders=(*base.folders, *other.folders),
    )


def _with_runs(
    made: Plan, words: tuple[str, ...], page: PageShell, listed: list[Unrunnable], depth: int
) -> Plan:
    """`made` with steps first creating the runs the command names by placeholders."""
    names = list(dict.fromkeys(w for w in words[2:] if RUN_PLACEHOLDER.fullmatch(w)))
    if not names and subcommand(words)[0] == "runs":
        # `runs list` reads the store the page's runs went to: one run stands in for them.
        return _merged(made, _run_producer(made.command, page, listed, depth, judge=False))
    judged = {words[i + 1] for i, word in enumerate(words[:-1]) if word == "--from-run"}
    for kind in ("judged", "judge", "run"):
        group = [n for n in names if _kind(n, judged) == kind]
        if not group:
            continue
        if kind == "judged":
            producer = Plan(made.command, (Step(JUDGED_RUN),))  # as it is: it needs its size
        else:
            producer = _run_producer(made.command, page, listed, depth, judge=kind == "judge")
        for index in range(len(group)):
            made = _merged(made, _other_model(producer, index), tuple(group[index:]))
    return made


def _kind(name: str, judged: set[str]) -> str:
    """Which run stands in for a placeholder: one a judge reads, a judge run, or any run."""
    return "judged" if name in judged else "judge" if "JUDGE" in name else "run"


def _run_producer(
    command: DocCommand, page: PageShell, listed: list[Unrunnable], depth: int, judge: bool
) -> Plan:
    """The plan of the nearest `rulebench run TASK` above the command on its page.

    When that one cannot run here, a plain tiny run of the same task stands in for it; with
    none above, a smoke run.
    """
    for earlier in reversed([c for c in page.commands if c.line < command.line]):
        path = subcommand(earlier.words)
        if path[0] != "run" or path[1] in ("", "--resume") or (path[1] == "judge") != judge:
            continue
        if unrunnable_reason(earlier, listed) is None:
            try:
                return plan(earlier, page, listed, depth + 1)
            except CannotRun:
                pass
        return plan(_stand_in(earlier, ("rulebench", "run", path[1])), page, listed, depth + 1)
    return plan(_stand_in(command, ("rulebench", "run", "smoke")), page, listed, depth + 1)


def _stand_in(command: DocCommand, words: tuple[str, ...]) -> DocCommand:
    return DocCommand(command.page, command.line, " ".join(words), words)


def _other_model(producer: Plan, index: int) -> Plan:
    """The producer with its model replaced by the index-th other stand-in (0: as it is)."""
    if index == 0:
        return producer
    last = producer.steps[-1]
    used = set(option_values(last.words, "--model"))
    model = [m for m in STAND_IN_MODELS if m not in used][index - 1]
    words, skip = [], False
    for word in last.words:
        words.append(model if skip else word)
        skip = word in MODEL_OPTIONS
    return replace(producer, steps=(*producer.steps[:-1], Step(tuple(words), last.stdin)))


def _with_inputs(
    made: Plan, words: tuple[str, ...], page: PageShell, listed: list[Unrunnable], depth: int
) -> tuple[Plan, tuple[str, ...]]:
    """`made` with what makes the files the command reads; paths into the checkout made absolute."""
    out = list(words)
    for index in _input_positions(words):
        path = words[index].rstrip("/")
        is_experiment = subcommand(words)[0] == "experiment"
        if path in DOC_FILES or (is_experiment and (ROOT / path).is_file()):
            text = DOC_FILES.get(path) or (ROOT / path).read_text(encoding="utf-8")
            files = {path: tiny_experiment(text) if is_experiment else text}
            made = replace(made, files=made.files | files)
        elif (ROOT / path).exists():
            out[index] = str(ROOT / path)
        elif path in page.writes and page.writes[path][0] < made.command.line:
            files = {path: page.writes[path][1]}
            made = replace(made, files=made.files | files)
        else:
            made = _with_made_input(made, path, page, listed, depth)
    return made, tuple(out)


def _with_made_input(
    made: Plan, path: str, page: PageShell, listed: list[Unrunnable], depth: int
) -> Plan:
    """`made` with the step that writes `path`: an earlier command of the page, else a stand-in."""
    for earlier in reversed([c for c in page.commands if c.line < made.command.line]):
        if unrunnable_reason(earlier, listed) is not None:
            continue
        try:
            written = rewrite(earlier.words, producer=True)
        except CannotRun:
            continue
        if path in {v.rstrip("/") for v in _outputs(written)}:
            return _merged(made, plan(earlier, page, listed, depth + 1))
    if path in STAND_INS:
        step = Step(("rulebench", *STAND_INS[path]), PLAY_INPUT)
        return replace(made, steps=(*made.steps, step), folders=(*made.folders, path))
    if path in COPIES:
        copies = {f"{path}/{Path(p).name}": p for p in _copied(COPIES[path])}
        return replace(made, copies=made.copies | copies)
    return made


def _copied(sources: tuple[str, ...]) -> list[str]:
    """The checkout paths of a COPIES entry: the first is a file, the others beside it."""
    first = Path(sources[0])
    return [sources[0], *(str(first.parent / name) for name in sources[1:])]


def _outputs(words: tuple[str, ...]) -> list[str]:
    """What a command writes: the values of its output options."""
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w in OUTPUT_OPTIONS - {"--store"}]


def _input_positions(words: tuple[str, ...]) -> list[int]:
    """Where the command names a file or folder it reads."""
    found = []
    for index, word in enumerate(words[2:], start=2):
        before = words[index - 1]
        if (
            word.startswith(("-", "$("))
            or "://" in word
            or before in OUTPUT_OPTIONS | MODEL_OPTIONS
        ):
            continue
        if before in PATH_OPTIONS or "/" in word or re.search(r"\.(toml|ya?ml|jsonl?|txt)$", word):
            found.append(index)
    return found


DOC_FILES = doc_files()


def unaccounted(shells: list[PageShell], listed: list[Unrunnable]) -> list[str]:
    """One line per command that neither runs here nor is listed, naming its page and line."""
    lines = []
    for shell in shells:
        for command in shell.commands:
            if unrunnable_reason(command, listed) is not None:
                continue
            try:
                plan(command, shell, listed)
            except CannotRun as why:
                lines.append(
                    f"{command.where}: `{command.text}`: the suite cannot run it ({why}) and "
                    f"{UNRUNNABLE_FILE.name} does not list it"
                )
    return lines


def unused(shells: list[PageShell], listed: list[Unrunnable]) -> list[str]:
    """The list's entries that match no command of the pages."""
    commands = [command for shell in shells for command in shell.commands]
    return [
        f"{UNRUNNABLE_FILE.name}: {entry.pattern.pattern!r} matches no documented command"
        for entry in listed
        if _matches_none(entry, commands)
    ]


def _matches_none(entry: Unrunnable, commands: list[DocCommand]) -> bool:
    """Whether `entry` matches none of `commands`."""
    return not any(unrunnable_reason(command, [entry]) for command in commands)
