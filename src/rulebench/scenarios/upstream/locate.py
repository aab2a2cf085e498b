"""Where the scenario text lives in a user's clone of RuLES, in either public layout.

normster/llm_rules keeps the scenario modules under `llm_rules/scenarios/` (data under
`llm_rules/data/`); the lm-evaluation-harness fork vendors them under
`lm_eval/tasks/realguardrails/s_rules/scenarios/` (official data in `s_rules/data/`). A user may
name the clone's root, the folder that holds `scenarios/`, or `scenarios/` itself; without a
name, the clone is found above an official data file or folder given as a suite.
"""

from collections.abc import Iterable
from pathlib import Path

from rulebench.core.errors import ConfigError

SCENARIO_FILES = ("games.py", "security.py", "scenario.py", "utils.py")
"""The clone's modules the text is read from (class templates, `R_`, `PRECEDENCE_REMINDERS`)."""
LAYOUTS: dict[str, str] = {
    "llm_rules/scenarios": "normster/llm_rules",
    "lm_eval/tasks/realguardrails/s_rules/scenarios": (
        "normster/llm_rules, vendored by an lm-evaluation-harness fork"
    ),
}
"""Path of the scenarios folder under a clone's root -> the project it names in a run."""
_MAX_PARENTS = 8
"""How far above a suite's data the clone's scenarios folder is looked for."""

WHAT_TO_CLONE = (
    "--prompts upstream reads RuLES's own instruction text from your clone: clone "
    "https://github.com/normster/llm_rules (its text is under llm_rules/scenarios/), or use an "
    "lm-evaluation-harness fork that vendors it under lm_eval/tasks/realguardrails/s_rules/"
    "scenarios/, and pass --upstream PATH (the clone's root, the folder holding scenarios/, or "
    "scenarios/ itself), or give --suite an official data folder inside the clone"
)


def scenarios_dir(path: Path) -> Path:
    """The clone's scenarios folder for a path the user named with `--upstream`."""
    if not path.exists():
        raise ConfigError(f"--upstream {path}: no such folder. {WHAT_TO_CLONE}")
    found = _candidate(path)
    if found is None:
        tried = ", ".join(f"{layout}/" for layout in LAYOUTS)
        raise ConfigError(
            f"--upstream {path}: holds no RuLES scenarios folder (looked for scenarios/"
            f"{{{','.join(SCENARIO_FILES)}}} here, in scenarios/, {tried}). {WHAT_TO_CLONE}"
        )
    return found


def find_from_suites(suites: Iterable[str]) -> Path | None:
    """The scenarios folder of the clone that holds one of the suites' data, if any."""
    for suite in suites:
        start = Path(suite)
        if not start.exists():
            continue
        for folder in [start.resolve(), *start.resolve().parents][:_MAX_PARENTS]:
            found = _candidate(folder)
            if found is not None:
                return found
    return None


def project_of(folder: Path) -> str:
    """The project a scenarios folder belongs to, by its layout."""
    path = folder.resolve().as_posix()
    for layout, project in LAYOUTS.items():
        if path.endswith("/" + layout):
            return project
    return "normster/llm_rules"


def _candidate(folder: Path) -> Path | None:
    """`folder` itself, its `scenarios/`, or a layout's scenarios folder below it."""
    options = [folder, folder / "scenarios", *(folder / layout for layout in LAYOUTS)]
    for option in options:
        if option.name == "scenarios" and _holds_text(option):
            return option.resolve()
    return None


def _holds_text(folder: Path) -> bool:
    # games.py and security.py hold the templates: a folder with either is the clone's.
    return (folder / "games.py").is_file() or (folder / "security.py").is_file()
