r"""Which rules an upstream prompt lists, read from the prompt text itself.

Upstream writes the item's rules as one block after its demonstrations, so the last block of
the prompt is the item's, in the order the model sees. Three layouts:
- between `<rule>` and `<\rule>` (or `</rule>`), one rule text per line (clutrr, deer, law and
  their -cf sets); law-cf's rule-citation lines read "ID. text";
- between `<rules>` and `</rules>`, each rule under `<rule id>ID</rule id>` and `<rule content>`
  (theoremQA, ulogic): the id is the one the model sees and cites;
- lines "rule: text" or "ruleN: text" (salad).

A rule text maps back to its id through the rule file. Texts shared by several ids are read
deterministically: the golden rule's text is the golden rule (the model cannot tell the two
apart, and upstream's own analysis finds the golden rule by its text), any other shared text
is the first id holding it in the rule file's order. The golden rule's position is the first
listed rule that is the golden id, else the first whose text is the golden rule's text.
"""

import re
from typing import NamedTuple

from pydantic import JsonValue

_TAGGED = ("clutrr", "clutrr-cf", "deer", "law", "law-cf")
_ID_TAGGED = ("theoremQA", "ulogic", "ulogic-cf")
_NUMBERED = ("salad", "salad-cf")
_CLOSING = re.compile(r"\n<[\\/]rule>")
_ID_ENTRY = re.compile(r"<rule id>(.*?)</rule id>\n<rule content>\n")
_NUMBERED_LINE = re.compile(r"^rule\d*: ", re.MULTILINE)


class ReadListing(NamedTuple):
    """The listed rules of one prompt, in its order, and where the golden one is."""

    ids: tuple[str, ...]
    golden_index: int | None
    """0-based position of the golden rule among `ids`; None if it is not listed."""


class RuleTexts:
    """A rule file's texts in one form, and the ids each text belongs to (file order).

    Built once per dataset and form: a rule file holds thousands of rules, a run many items.
    """

    def __init__(self, rules: JsonValue, form: str) -> None:
        self.text_of: dict[str, str] = {}
        self.ids_of: dict[str, list[str]] = {}
        if isinstance(rules, dict):
            for rule_id, rule in rules.items():
                text = rule.get(form) if isinstance(rule, dict) else None
                if isinstance(text, str):
                    self.text_of[rule_id] = text
                    self.ids_of.setdefault(text, []).append(rule_id)
        self.most_lines = max((t.count("\n") + 1 for t in self.ids_of), default=1)

    def id_of(self, entry: str, golden: str | None) -> str | None:
        """The id a listed entry stands for: its text's id, or the "ID. text" prefix's."""
        ids = self.ids_of.get(entry)
        if ids:
            return golden if golden in ids else ids[0]
        head, _, rest = entry.partition(". ")
        return head if rest and self.text_of.get(head) == rest else None


def read_listing(
    task: str, prompt: str, texts: RuleTexts, golden: str | None
) -> ReadListing | None:
    """The rules the prompt lists; None where its rule block cannot be read back.

    Args:
        task: the release's dataset name (it decides the block's layout).
        prompt: the prompt as upstream built it.
        texts: the rule file upstream read, in the form the prompt shows (`RuleTexts`).
        golden: the golden rule's id, from the record.
    """
    if task in _TAGGED:
        entries = _tagged_entries(prompt, texts, golden)
    elif task in _ID_TAGGED:
        entries = _id_tagged_entries(prompt, texts)
    elif task in _NUMBERED:
        entries = _numbered_entries(prompt, texts, golden)
    else:
        return None
    if not entries:
        return None
    ids = tuple(rule_id for rule_id, _ in entries)
    return ReadListing(ids, _golden_index(entries, texts, golden))


def _golden_index(
    entries: list[tuple[str, str]], texts: RuleTexts, golden: str | None
) -> int | None:
    ids = [rule_id for rule_id, _ in entries]
    if golden in ids:
        return ids.index(golden)
    golden_text = texts.text_of.get(golden or "")
    shown = [text for _, text in entries]
    return shown.index(golden_text) if golden_text in shown else None


def _tagged_entries(
    prompt: str, texts: RuleTexts, golden: str | None
) -> list[tuple[str, str]] | None:
    """The last `<rule>` block's rules, one text (or "ID. text") per line."""
    start = prompt.rfind("<rule>\n")
    if start < 0:
        return None
    body = prompt[start + len("<rule>\n") :]
    closing = _CLOSING.search(body)
    if closing is None:
        return None
    return _split_lines(body[: closing.start()].split("\n"), texts, golden)


def _split_lines(
    lines: list[str], texts: RuleTexts, golden: str | None
) -> list[tuple[str, str]] | None:
    """Lines grouped into known rules, every line in one; None if a line is no rule's."""
    entries = []
    position = 0
    while position < len(lines):
        found = _first_entry(lines[position:], texts, golden)
        if found is None:
            return None
        rule_id, size = found
        entries.append((rule_id, texts.text_of[rule_id]))
        position += size
    return entries


def _first_entry(lines: list[str], texts: RuleTexts, golden: str | None) -> tuple[str, int] | None:
    """The rule the first lines hold and how many lines it takes (fewest first)."""
    for size in range(1, min(texts.most_lines, len(lines)) + 1):
        rule_id = texts.id_of("\n".join(lines[:size]), golden)
        if rule_id is not None:
            return rule_id, size
    return None


def _id_tagged_entries(prompt: str, texts: RuleTexts) -> list[tuple[str, str]] | None:
    """The last `<rules>` block's ids, as shown, with their texts from the rule file."""
    start = prompt.rfind("<rules>\n")
    end = prompt.find("</rules>", start)
    if start < 0 or end < 0:
        return None
    ids = _ID_ENTRY.findall(prompt[start:end])
    if not ids or any(rule_id not in texts.text_of for rule_id in ids):
        return None
    return [(rule_id, texts.text_of[rule_id]) for rule_id in ids]


def _numbered_entries(
    prompt: str, texts: RuleTexts, golden: str | None
) -> list[tuple[str, str]] | None:
    """Salad's "rule: text" / "ruleN: text" lines just before the item's "text: " line.

    Demonstrations list rules the same way, each example ending in a blank line, so the
    item's rules are those after the last blank line before its text.
    """
    end = prompt.rfind("\ntext: ")
    if end < 0:
        return None
    start = prompt.rfind("\n\n", 0, end)
    pieces = _NUMBERED_LINE.split(prompt[start + 2 if start >= 0 else 0 : end + 1])
    if len(pieces) < 2 or pieces[0].strip():
        return None
    entries = []
    for piece in pieces[1:]:
        rule_id = texts.id_of(piece.removesuffix("\n"), golden)
        if rule_id is None:
            return None
        entries.append((rule_id, texts.text_of[rule_id]))
    return entries
