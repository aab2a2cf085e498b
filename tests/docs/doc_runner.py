"""Runs a documented command's plan in a folder of its own, as a reader would at a shell."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rulebench.engine.store.database import Store

from tests.command import rulebench_command
from tests.docs.doc_blocks import ROOT
from tests.docs.doc_plans import Plan, Step
from tests.docs.doc_rewrite import OUTPUT_OPTIONS

PLUGIN = ROOT / "examples" / "plugin"
PYTHON_SUBSTITUTION = re.compile(r"\$\(python -c '([^']*)'\)")
STEP_TIMEOUT_S = 300


@dataclass(frozen=True)
class Ran:
    """The documented command's own process, once its plan's steps before it succeeded."""

    result: subprocess.CompletedProcess[str]
    words: tuple[str, ...]
    """The words it ran with, run ids filled in."""


class StepFailed(AssertionError):
    """A step exited non-zero; the message names the page line, the step and its stderr."""


def run_plan(plan: Plan, folder: Path) -> Ran:
    """Run every step in `folder`; StepFailed names the first step that exits non-zero."""
    env = _environment(plan, folder)
    _lay_out(plan, folder)
    store = folder / (plan.store or "store.sqlite")
    ids: dict[str, str] = {}
    ran: Ran | None = None
    for step in plan.steps:
        wanted = [name for name in step.makes if name not in ids]
        if step.makes and not wanted:
            continue
        before = _run_ids(store)
        ran = _run_step(step, folder, env, ids)
        if ran.result.returncode != 0 and step is not plan.steps[-1]:
            raise StepFailed(_failure(plan, "a step before it", ran))
        made = [run_id for run_id in _run_ids(store) if run_id not in before]
        ids.update(zip(wanted, made, strict=False))
    assert ran is not None
    return ran


def failure(plan: Plan, ran: Ran) -> str:
    """The line a failing documented command reports."""
    return _failure(plan, "it", ran)


def _failure(plan: Plan, what: str, ran: Ran) -> str:
    tail = "\n".join((ran.result.stderr or ran.result.stdout).strip().splitlines()[-15:])
    return (
        f"{plan.command.where}: `{plan.command.text}`: {what} exited {ran.result.returncode} "
        f"running `rulebench {' '.join(ran.words[1:])}`:\n{tail}"
    )


def _environment(plan: Plan, folder: Path) -> dict[str, str]:
    """This process's environment, the store in `folder`, and the example plugin if installed."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    env |= {"COLUMNS": "200", "PYTHONIOENCODING": "utf-8"}
    env["RULEBENCH_STORE"] = str(folder / (plan.store or "store.sqlite"))
    if plan.plugin:
        site = _installed_plugin(folder / "site")
        paths = [str(site), str(PLUGIN / "src"), env.get("PYTHONPATH", "")]
        env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return env


def _installed_plugin(site: Path) -> Path:
    """A folder that makes examples/plugin importable and its entry points found, as
    `pip install ./examples/plugin` would, without changing the suite's own environment."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    metadata = f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    groups = project["entry-points"]
    lines = [
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in entries.items())
        for group, entries in groups.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    return site


def _lay_out(plan: Plan, folder: Path) -> None:
    """The files the plan writes and copies, and tmp/ for the pages' /tmp/ paths."""
    (folder / "tmp").mkdir()
    for relative in plan.folders:
        (folder / relative).mkdir(parents=True, exist_ok=True)
    for relative, text in plan.files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    for relative, source in plan.copies.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, folder / relative)
        else:
            shutil.copy(ROOT / source, folder / relative)


def _run_step(step: Step, folder: Path, env: dict[str, str], ids: dict[str, str]) -> Ran:
    words = tuple(_filled(word, folder, env, ids) for word in step.words)
    result = subprocess.run(
        rulebench_command(*words[1:]),
        cwd=folder,
        input=step.stdin,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
        check=False,
        env=env,
    )
    if step.stdout is not None:
        (folder / step.stdout).write_text(result.stdout, encoding="utf-8")
    return Ran(result, words)


def _filled(word: str, folder: Path, env: dict[str, str], ids: dict[str, str]) -> str:
    """The word with its run id, or what its `$(python -c CODE)` prints."""
    if word in ids:
        return ids[word]
    match = PYTHON_SUBSTITUTION.fullmatch(word)
    if match is None:
        return word
    printed = subprocess.run(
        [sys.executable, "-c", match.group(1)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return printed.stdout.strip()


def _run_ids(store: Path) -> list[str]:
    """The store's run ids, oldest first (none before the store exists)."""
    if not store.exists():
        return []
    opened = Store(store)
    try:
        return [run.id for run in reversed(opened.list_runs(limit=10_000))]
    finally:
        opened.close()


def outputs(words: tuple[str, ...]) -> list[str]:
    """The files and folders the command says it writes (-o, --save, --html)."""
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w in OUTPUT_OPTIONS - {"--store"}]
