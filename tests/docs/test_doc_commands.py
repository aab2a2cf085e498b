"""Every `rulebench` command in the docs' shell blocks runs and exits 0, so no page drifts.

Each command runs as its page writes it, at tiny sizes, on a scripted model where the page's
model is out of reach (doc_plans.py says what changes), in a folder and store of its own. The
commands the suite cannot run are listed with why in unrunnable_commands.toml;
test_doc_blocks.py checks that every command either runs here or is listed there.
"""

from pathlib import Path

import pytest

from tests.docs.doc_blocks import DocCommand, PageShell, doc_pages, read_page
from tests.docs.doc_plans import load_unrunnable, plan, unrunnable_reason
from tests.docs.doc_rewrite import CannotRun
from tests.docs.doc_runner import StepFailed, failure, outputs, run_plan

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]


def _runnable() -> list[object]:
    listed = load_unrunnable()
    return [
        pytest.param(command, shell, id=command.where)
        for shell in map(read_page, doc_pages())
        for command in shell.commands
        if unrunnable_reason(command, listed) is None
    ]


@pytest.mark.parametrize(("command", "shell"), _runnable())
def test_documented_command_runs(command: DocCommand, shell: PageShell, tmp_path: Path) -> None:
    try:
        steps = plan(command, shell, load_unrunnable())
    except CannotRun as why:
        pytest.fail(f"{command.where}: `{command.text}`: cannot run it here: {why}", False)
    try:
        ran = run_plan(steps, tmp_path)
    except StepFailed as why:
        pytest.fail(str(why), pytrace=False)
    if ran.result.returncode != 0 or "Traceback" in ran.result.stderr:
        pytest.fail(failure(steps, ran), pytrace=False)
    for written in outputs(ran.words):
        assert (tmp_path / written).exists(), f"{command.where}: wrote no {written}"
