"""Which rules an upstream prompt lists is read from the prompt's own rule block, per dataset.

Every dataset with upstream prompts, every rule setting of the paper design (and rule citation
where upstream has it): the stored ids, in order, are the rules the item's block shows, the
golden index points at the golden rule, golden-only prompts list the golden rule, and law and
law-cf, whose charge ranking is shuffled after the rules, are read like the others.
"""

import json
import re
from pathlib import Path

import pytest
from pydantic import JsonValue

from rulebench.core.items import Item
from rulebench.inferential.item_meta import ItemMeta
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialTask
from rulebench.inferential.upstream.calls import raw_records
from rulebench.inferential.upstream.listing import RuleTexts, read_listing

from tests.inferential.upstream.clone_fixture import BUILDS_LAW_CF_CITE, grow_rules, make_clone

FACTUAL = ("clutrr", "deer", "theoremQA", "ulogic", "law", "salad")
COUNTERFACTUAL = ("clutrr-cf", "ulogic-cf", "law-cf", "salad-cf")
CITES = ("clutrr", "clutrr-cf", "theoremQA", "ulogic", "ulogic-cf", "law-cf", "salad", "salad-cf")


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    made = make_clone(tmp_path, BUILDS_LAW_CF_CITE)
    grow_rules(made, "law", 20)
    grow_rules(made, "law-cf", 5)
    grow_rules(made, "salad-cf", 3)  # its one rule leaves upstream's noise draw no choice
    return made


def _items(clone: Path, task: str, **grid: object) -> list[Item]:
    return InferentialTask(
        tasks=(task,),
        data_root=str(clone / "dataset"),
        prompts="upstream",
        grid=Grid.model_validate(grid),
    ).items()


def _rules(clone: Path, task: str) -> dict[str, dict[str, str]]:
    rules: dict[str, dict[str, str]] = json.loads(
        (clone / "dataset" / task / "test_rule.json").read_text(encoding="utf-8")
    )
    return rules


def _shown(task: str, prompt: str) -> list[str]:
    """The item's rule block as the model reads it: one entry per rule, in order."""
    if task.startswith("salad"):  # the item's example: after the demonstrations' blank line
        item = prompt[: prompt.rfind("\ntext: ")].rsplit("\n\n", 1)[-1]
        return re.findall(r"^rule\d*: (.*)$", item, re.MULTILINE)
    if task in ("theoremQA", "ulogic", "ulogic-cf"):
        block = prompt[prompt.rfind("<rules>\n") :]
        return re.findall(r"<rule id>(.*?)</rule id>", block[: block.find("</rules>")])
    block = prompt[prompt.rfind("<rule>\n") + len("<rule>\n") :]
    return re.split(r"\n<[\\/]rule>", block)[0].split("\n")


def _goldens(clone: Path, task: str) -> dict[str, str]:
    """Each sample's golden rule id, by the sample ids the loader makes."""
    goldens = {}
    for sample_id, record in raw_records(clone / "dataset", task).items():
        rule = record["rule"]
        goldens[sample_id] = str(rule[0] if isinstance(rule, list) else rule)
    return goldens


def _check(item: Item, rules: dict[str, dict[str, str]], goldens: dict[str, str]) -> None:
    meta = ItemMeta.read(item.metadata)
    form = meta.form.upper()
    shown = _shown(meta.task, item.messages[0].content)
    if meta.task in ("theoremQA", "ulogic", "ulogic-cf"):
        assert list(meta.listed_rules) == shown  # the ids the model sees and cites
    else:
        texts = [rules[rule_id][form] for rule_id in meta.listed_rules]
        assert [s.split(". ", 1)[-1] if meta.cite_rule else s for s in shown] == texts
    assert meta.golden_index is not None, f"{meta.cell}: no golden index"
    listed_golden = rules[meta.listed_rules[meta.golden_index - 1]][form]
    assert listed_golden == rules[goldens[meta.sample_id]][form]
    if meta.quantity == "golden":
        assert len(meta.listed_rules) == 1 and meta.golden_index == 1


@pytest.mark.parametrize("task", FACTUAL + COUNTERFACTUAL)
def test_every_listing_is_read_from_the_prompt(clone: Path, task: str) -> None:
    counterfactual = task in COUNTERFACTUAL
    grids: list[dict[str, object]] = [
        {"quantities": ("golden", "few", "all"), "forms": ("nl", "fol")},
        {"quantities": ("golden", "few"), "cot": (False, True), "paper_shots": True},
    ]
    if counterfactual:
        grids = [{"quantities": ("golden", "few"), "cot": (True,), "paper_shots": True}]
    if task in CITES:
        grids.append(
            {"quantities": ("few",), "cot": (True,), "cite_rule": True, "paper_shots": True}
        )
    rules, goldens = _rules(clone, task), _goldens(clone, task)
    checked = 0
    for grid in grids:
        for item in _items(clone, task, counterfactual=(counterfactual,), **grid):
            _check(item, rules, goldens)
            checked += 1
    assert checked


def test_shared_texts_read_as_the_golden_rule_else_the_first_id() -> None:
    rules: JsonValue = {
        "1": {"NL": "same"},
        "2": {"NL": "other"},
        "3": {"NL": "same"},
        "4": {"NL": "other"},
    }
    texts = RuleTexts(rules, "NL")
    prompt = "<rule>\nsame\nother\nsame\n<\\rule>\n<question>\nq\n<\\question>\n"
    listing = read_listing("clutrr", prompt, texts, "3")
    assert listing is not None
    assert listing.ids == ("3", "2", "3") and listing.golden_index == 0
    listing = read_listing("clutrr", prompt, texts, "2")
    assert listing is not None
    assert listing.ids == ("1", "2", "1") and listing.golden_index == 1


def test_a_rule_text_with_a_newline_and_the_last_block_are_read() -> None:
    rules: JsonValue = {"7": {"NL": "two\nlines"}, "8": {"NL": "one line"}}
    demo = "<rule>\nour demo rule\n<\\rule>\n"
    prompt = f"{demo}\n<rule>\none line\ntwo\nlines\n</rule>\nquestion\n"
    listing = read_listing("law", prompt, RuleTexts(rules, "NL"), "7")
    assert listing is not None and listing.ids == ("8", "7") and listing.golden_index == 1
    assert (
        read_listing("law", "<rule>\nnot a rule\n<\\rule>\n", RuleTexts(rules, "NL"), "7") is None
    )


def test_an_id_shown_for_a_shared_text_still_finds_the_golden_rule() -> None:
    # upstream shows each text under the last id holding it: the golden id may not appear
    rules: JsonValue = {"5": {"NL": "shared"}, "9": {"NL": "shared"}, "6": {"NL": "noise"}}
    prompt = (
        "<rules>\n<rule id>6</rule id>\n<rule content>\nnoise\n"
        "<rule id>9</rule id>\n<rule content>\nshared\n</rules>\n"
    )
    listing = read_listing("ulogic", prompt, RuleTexts(rules, "NL"), "5")
    assert listing is not None and listing.ids == ("6", "9") and listing.golden_index == 1
