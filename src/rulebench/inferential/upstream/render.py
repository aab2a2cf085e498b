"""Build upstream's prompts for many items in one child process, with clear errors.

One child per run: every call is batched into a single request. A failure inside upstream's
code comes back as data (exception, message, line) and becomes one ConfigError naming the file,
the dataset and setting, and, where it is a known defect of the release, why upstream cannot
build that setting as shipped.
"""

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
_KNOWN_DEFECTS = (
    (
        "Population must be a sequence",
        "upstream calls random.sample() on dict keys, a TypeError since Python 3.11; "
        "upstream cannot build this setting as shipped on this Python",
    ),
    (
        "unknown dataset",
        "upstream's prompt has no branch for this dataset (law-cf: its code "
        "tests for 'law_cf' while the release's folder is 'law-cf')",
    ),
    (
        "cannot access local variable",
        "upstream's prompt has no branch for this setting of "
        "this dataset (e.g. clutrr-cf has no none or all branch; deer has no rule citation)",
    ),
    (
        "referenced before assignment",
        "upstream's prompt has no branch for this setting of "
        "this dataset (e.g. clutrr-cf has no none or all branch; deer has no rule citation)",
    ),
    (
        "Invalid format specifier",
        "upstream writes literal braces inside an f-string here "
        "(law-cf with rule citation); it cannot build this setting as shipped",
    ),
)


class UpstreamPrompt(BaseModel):
    """One prompt as upstream built it, and what its analysis branch returned with it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    info: JsonValue = None
    """The golden rule as the behaviour-analysis branch reports it: a 0-based position in the
    listed rules (clutrr, salad) or a rule id (theoremQA, ulogic, law-cf); None elsewhere."""


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
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(CHILD)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
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
    why = next((reason for marker, reason in _KNOWN_DEFECTS if marker in what), None)
    if why is None and error.get("type") == "KeyError" and call.args["rule_type"] == "FOL":
        why = f"{call.dataset}'s rule file has no FOL form (ulogic-cf has NL only)"
    if why is None and error.get("missing"):
        why = f"upstream's code reads '{error['missing']}', which rulebench does not set"
    reason = f"; {why}" if why else ""
    return f"{where}: {PROCESSOR_CLASS}.{PROMPT_METHOD} cannot build {setting}: {what}{reason}"
