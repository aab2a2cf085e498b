"""Which listed rule a reply says it applied, for the behaviour analysis.

Rulebench's own prompts ask for "Applied rule: N"; upstream's prompts (`--prompts upstream`)
teach upstream's formats, read by `upstream_citation`. A wrong answer citing a noise rule is a
triggering error, one citing the golden rule an execution error, one citing nothing its own
class; this module only reads the citation.
"""

import json
import re
from collections.abc import Callable, Sequence

# Separators are one character class per gap, so a long run of spaces or markup costs linear
# time (nested optional runs such as `\s*[:]?\s*` backtrack cubically on a reply with no digit).
_CITATION = re.compile(
    r"applied[\W_]+rule[\W_]*(?:(?:rule|no|number)[\W_]*)?(?P<number>\d{1,6})(?!\d)",
    re.IGNORECASE,
)


def cited_rule(reply: str) -> int | None:
    """The 1-based rule number from the last "Applied rule: N" in the reply, else None.

    The last citation wins because a chain of thought may mention a rule it then rejects before
    the final citation. Markdown, case and spellings such as `Applied rule: #3.`, `**Applied
    Rule:** 3` or `applied rule: rule 3` are read; a rule 0 is no citation (rules are numbered
    from 1) and a number of more than six digits is not read.
    """
    found = list(_CITATION.finditer(reply))
    if not found:
        return None
    number = int(found[-1].group("number"))
    return number if number >= 1 else None


_ORDINALS = ("first", "second", "third")
"""The ordinal words upstream's parser reads (its behaviour analysis lists three rules)."""
_APPLIED_RULE_ID = re.compile(r"AppliedRuleId: (\d+)")
_JSON_RULE = re.compile(r"\"rule\":\"?(\d+)\"?,")
BY_ORDINAL = ("clutrr", "clutrr-cf", "salad", "salad-cf")
"""Datasets whose upstream citation is an ordinal word (the others cite a rule id)."""
_BY_RULE_ID = ("theoremQA", "ulogic", "ulogic-cf")


def upstream_citation(task: str, listed: Sequence[str]) -> Callable[[str], int | None]:
    """A reader of upstream's citation format for `task`: the 1-based listed position cited.

    Upstream's behaviour-analysis demonstrations teach three formats, read as its scorer does:
    an ordinal word ("The second rule can be applied...", the first of first/second/third in
    the reply) for clutrr and salad; `AppliedRuleId: N` (a rule id) for theoremQA and ulogic;
    a JSON object `{"rule": N, ...}` (a rule id) for law-cf. A rule id maps to its position in
    `listed` (the ids upstream listed, in order); an id it did not list is no citation.
    """
    if task in BY_ORDINAL:
        return _ordinal_citation
    if task in _BY_RULE_ID:
        return lambda reply: _position(_applied_rule_id(reply), listed)
    if task == "law-cf":
        return lambda reply: _position(_json_rule(reply), listed)
    return lambda reply: None


def _ordinal_citation(reply: str) -> int | None:
    words = (word.strip(".").strip(",").strip() for word in reply.lower().split(" "))
    found = next((word for word in words if word in _ORDINALS), None)
    return None if found is None else _ORDINALS.index(found) + 1


def _applied_rule_id(reply: str) -> str | None:
    found = _APPLIED_RULE_ID.search(reply)
    return None if found is None else found.group(1)


def _json_rule(reply: str) -> str | None:
    try:
        parsed = json.loads(reply)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and "rule" in parsed:
        rule = parsed["rule"]
        return None if isinstance(rule, (dict, list)) or rule is None else str(rule)
    found = _JSON_RULE.findall(reply)
    return found[0] if found else None


def _position(rule_id: str | None, listed: Sequence[str]) -> int | None:
    if rule_id is None or rule_id not in listed:
        return None
    return list(listed).index(rule_id) + 1


def is_json_number_citation(reply: str | None) -> bool:
    """Whether the whole reply is a JSON object whose "rule" is a number (law-cf's format).

    Upstream's parse compares that number with the golden rule's id as a string, so it counts
    every such reply as a triggering error, even one citing the golden rule.
    """
    try:
        parsed = json.loads(reply or "")
    except ValueError:
        return False
    rule = parsed.get("rule") if isinstance(parsed, dict) else None
    return isinstance(rule, (int, float)) and not isinstance(rule, bool)
