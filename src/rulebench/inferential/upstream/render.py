"""Build upstream's prompts for many items in one child process, with clear errors.

One child per run: every call is batched into a single request. A failure inside upstream's
code comes back as data (exception, message, line), per call, and `describe_failure` makes it
one line naming the file, the dataset and setting, and, where the cause is known, why upstream
cannot build that setting as shipped. Causes are read from the exception's type, Python's own
messages and the clone's source (which dataset names its `prompt` tests), never from the
wording of upstream's messages.
"""

import ast
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.errors import ConfigError
from rulebench.inferential.upstream.calls import UpstreamCall
from rulebench.inferential.upstream.locate import PROCESSOR_CLASS, PROMPT_METHOD

CHILD = Path(__file__).with_name("child.py")
CHILD_BASE_TIMEOUT_S = 60.0
CHILD_TIMEOUT_PER_CALL_S = 0.05
"""The child's time limit grows with the calls; upstream's noise-rule loops never end when a
rule file has too few rules for the count they draw, and that must not hang a run."""
_NO_BRANCH = (
    "upstream's prompt has no branch for this setting of this dataset "
    "(e.g. clutrr-cf has no none or all branch; deer has no rule citation)"
)


class UpstreamFailure(BaseModel):
    """Why upstream's code raised for one call, as the child reports it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    type: str
    message: str
    line: int | None = None
    """The line of the clone's processor.py where it raised, if it raised there."""
    missing: str | None = None
    """The name an AttributeError or NameError did not find."""


class UpstreamPrompt(BaseModel):
    """One prompt as upstream built it, or why it could not be built."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    sampled_set: bool = False
    """Upstream sampled a set-like population (dict keys): built by CPython 3.10's rule."""
    failed: UpstreamFailure | None = None
    """Set when upstream's code raised for this call (the text is then empty)."""


def build_prompts(
    processor: Path, rules: dict[str, JsonValue], calls: Sequence[UpstreamCall]
) -> list[UpstreamPrompt]:
    """Every call's prompt (or its failure), in order, from one child process.

    Raises:
        ConfigError: the child could not load the clone's file, or did not finish in time.
    """
    if not calls:
        return []
    request = {
        "processor": str(processor.resolve()),
        "class": PROCESSOR_CLASS,
        "method": PROMPT_METHOD,
        "rules": rules,
        "calls": [call.model_dump(mode="json") for call in calls],
    }
    timeout_s = CHILD_BASE_TIMEOUT_S + CHILD_TIMEOUT_PER_CALL_S * len(calls)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(CHILD)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"{processor}: building upstream's prompts did not finish in {timeout_s:.0f} s; its "
            "noise-rule loops never end when a rule file has fewer rules than they draw"
        ) from None
    try:
        response = json.loads(done.stdout)
    except json.JSONDecodeError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ConfigError(
            f"{processor}: building upstream's prompts failed (exit {done.returncode}): {last}"
        ) from None
    if "error" in response:
        load = UpstreamFailure.model_validate(response["error"])
        raise ConfigError(
            f"{_where(processor, load)}: loading upstream's prompt builder failed: "
            f"{load.type}: {load.message}"
        )
    return [_prompt(entry) for entry in response["prompts"]]


def _prompt(entry: dict[str, JsonValue]) -> UpstreamPrompt:
    if "failed" in entry:
        return UpstreamPrompt(failed=UpstreamFailure.model_validate(entry["failed"]))
    return UpstreamPrompt.model_validate(entry)


def _where(processor: Path, failure: UpstreamFailure) -> str:
    return f"{processor}" + (f": line {failure.line}" if failure.line is not None else "")


def describe_failure(processor: Path, failure: UpstreamFailure, call: UpstreamCall) -> str:
    """One line: where upstream's code raised, for which dataset and setting, and why."""
    setting = f"{call.dataset} (rule_setting={call.args['rule_setting']}, rule_type="
    setting += (
        f"{call.args['rule_type']}, few_shot={call.args['few_shot']}, cot={call.args['cot']})"
    )
    why = _why(processor, failure, call)
    reason = f"; {why}" if why else ""
    what = f"{failure.type}: {failure.message}"
    return (
        f"{_where(processor, failure)}: {PROCESSOR_CLASS}.{PROMPT_METHOD} cannot build "
        f"{setting}: {what}{reason}"
    )


def _why(processor: Path, error: UpstreamFailure, call: UpstreamCall) -> str | None:
    """The known cause of a failure, from its type, Python's message and the clone's source."""
    kind, message = error.type, error.message
    branch = f"{call.args['dataset']}".lower()
    if not _has_branch(processor, branch):
        return f"upstream's {PROMPT_METHOD} has no branch for dataset '{branch}'"
    if kind in ("UnboundLocalError", "NoPromptError"):
        return _NO_BRANCH
    if kind == "ValueError" and "format specifier" in message:  # Python's own message
        return (
            "upstream writes literal braces inside an f-string here (law-cf with rule "
            "citation); it cannot build this setting as shipped"
        )
    if kind == "ValueError" and "larger than population" in message:  # Python's own message
        return f"{call.dataset}'s rule file has fewer rules than upstream draws for this setting"
    if kind == "KeyError" and call.args["rule_type"] == "FOL":
        return f"{call.dataset}'s rule file has no FOL form (ulogic-cf has NL only)"
    if error.missing:
        return f"upstream's code reads '{error.missing}', which rulebench does not set"
    return None


def _has_branch(processor: Path, dataset: str) -> bool:
    """Whether the clone's prompt method tests for this dataset name (True if unreadable).

    A branch is a string the method compares with (`==`, `in [...]`) or a prefix it tests with
    `startswith` (upstream's ulogic branch serves ulogic-cf that way).
    """
    try:
        tree = ast.parse(processor.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return True
    methods = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    names, prefixes = set(), set()
    for node in (n for m in methods if m.name == PROMPT_METHOD for n in ast.walk(m)):
        if isinstance(node, ast.Compare):
            names |= {c.lower() for c in _constants(node.comparators)}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            is_prefix_test = node.func.attr == "startswith"
            prefixes |= {c.lower() for c in _constants(node.args)} if is_prefix_test else set()
    return dataset in names or any(dataset.startswith(p) for p in prefixes if p)


def _constants(nodes: Sequence[ast.expr]) -> list[str]:
    """The string constants among nodes and inside the lists, tuples and sets among them."""
    found: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            found.extend(_constants(node.elts))
    return found
