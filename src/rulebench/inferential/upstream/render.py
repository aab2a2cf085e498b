"""Build upstream's prompts for many items in one child process, with clear errors.

One child per run: every call is batched into a single request. A failure inside upstream's
code comes back as data (exception, message, line) and becomes one ConfigError naming the file,
the dataset and setting, and, where the cause is known, why upstream cannot build that setting
as shipped. Causes are read from the exception's type, Python's own messages and the clone's
source (which dataset names its `prompt` tests), never from the wording of upstream's messages.
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


class UpstreamPrompt(BaseModel):
    """One prompt as upstream built it, and what rulebench learnt about its rule list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    info: JsonValue = None
    """The golden rule as the behaviour-analysis branch reports it: a 0-based position in the
    listed rules (clutrr, salad) or a rule id (theoremQA, ulogic, law-cf); None elsewhere."""
    listed: tuple[str, ...] | None = None
    """The ids of the rules upstream listed, in its order; None where it listed none it
    shuffled (golden-only and rule-less prompts)."""
    sampled_set: bool = False
    """Upstream sampled a set-like population (dict keys): built by CPython 3.10's rule."""


def build_prompts(
    processor: Path, rules: dict[str, JsonValue], calls: Sequence[UpstreamCall]
) -> list[UpstreamPrompt]:
    """Every call's prompt, in order, from one child process."""
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
        raise ConfigError(_describe(processor, response["error"], calls))
    return [UpstreamPrompt.model_validate(prompt) for prompt in response["prompts"]]


def _describe(processor: Path, error: dict[str, JsonValue], calls: Sequence[UpstreamCall]) -> str:
    where = f"{processor}"
    if isinstance(error.get("line"), int):
        where += f": line {error['line']}"
    index = error.get("index")
    what = f"{error.get('type')}: {error.get('message')}"
    if not isinstance(index, int) or index < 0:
        return f"{where}: loading upstream's prompt builder failed: {what}"
    call = calls[index]
    setting = f"{call.dataset} (rule_setting={call.args['rule_setting']}, rule_type="
    setting += (
        f"{call.args['rule_type']}, few_shot={call.args['few_shot']}, cot={call.args['cot']})"
    )
    why = _why(processor, error, call)
    reason = f"; {why}" if why else ""
    return f"{where}: {PROCESSOR_CLASS}.{PROMPT_METHOD} cannot build {setting}: {what}{reason}"


def _why(processor: Path, error: dict[str, JsonValue], call: UpstreamCall) -> str | None:
    """The known cause of a failure, from its type, Python's message and the clone's source."""
    kind, message = error.get("type"), f"{error.get('message')}"
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
    if error.get("missing"):
        return f"upstream's code reads '{error['missing']}', which rulebench does not set"
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
