"""The judge entry point: task dispatch, fix listing, and properties over arbitrary replies."""

import inspect
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import ConfigError
from rulebench.core.rules import Sample
from rulebench.inferential import option_letters as letters
from rulebench.inferential.extraction import Mode
from rulebench.inferential.judge import TASKS, judge, robust_fixes
from rulebench.inferential.tasks import deer, salad, theoremqa, ulogic
from rulebench.inferential.tasks.kinship.extraction import labels as kinship_labels
from rulebench.inferential.tasks.law import extraction as law
from rulebench.inferential.tasks.stringgame import extraction as stringgame

MODES: tuple[Mode, ...] = ("paper", "robust")

CHARGES = ("诈骗", "合同诈骗", "盗窃", "抢劫", "故意伤害", "故意杀人", "危险驾驶", "交通肇事")

GOLDS: dict[str, st.SearchStrategy[str]] = {
    "kinship": st.sampled_from(kinship_labels.LABELS[:18]),
    "clutrr": st.sampled_from(kinship_labels.LABELS[:18]),
    "clutrr-cf": st.sampled_from(kinship_labels.LABELS),
    "salad": st.sampled_from(salad.IDS),
    "salad-cf": st.sampled_from(salad.IDS),
    "deer": st.sampled_from("abcd"),
    "theoremQA": st.sampled_from("abcd"),
    "ulogic": st.sampled_from(["true", "false"]),
    "ulogic-cf": st.sampled_from(["true", "false"]),
    "law": st.sampled_from(CHARGES),
    "law-cf": st.sampled_from(CHARGES),
    "stringgame": st.integers(-10_000, 10_000).map(str),
}


def natural_reply(task: str, gold: str, rule: int) -> str:
    """The gold in the format the task's prompt asks for."""
    if task == "deer":
        return f"The answer is {gold.upper()}."
    if task == "theoremQA":
        return f"Answer: {gold}."
    if task.startswith("ulogic"):
        return f"Answer: {gold.capitalize()}."
    if task == "law-cf":
        return json.dumps({"rule": rule, "指控": gold}, ensure_ascii=False)
    if task == "stringgame":
        return f"Based on the {rule}th rule, the answer is {gold}."
    return gold


def make_sample(task: str, gold: str, others: list[str]) -> Sample:
    candidates = tuple(dict.fromkeys([gold, *others])) if task.startswith("law") else ()
    return Sample(
        id="s", task=task, question="q", gold=gold, golden_rule="1", candidates=candidates
    )


FRAGMENTS = st.sampled_from(
    [
        " ",
        "\n",
        "Answer:",
        "answer",
        " answer ",
        "the answer is",
        "**",
        '"',
        "(",
        ")",
        ".",
        ",",
        "A.",
        "b)",
        "(c)",
        "o1",
        "O10",
        "son in law",
        "aunt",
        "sorry",
        "Sorry",
        "cannot",
        "Malicious Use",
        "True",
        "false",
        "盗窃",
        "合同诈骗",
        "{",
        "}",
        '"指控"',
        ":",
        "1,234",
        "-7",
        "12.5",
        "Applied rule: #3",
        "é",
        "\t",
        "'s ",
        " of ",
        "Wait, ",
        "actually",
        " not ",
        "rather than",
        " - ",
        "because",
        "不是",
        "而是",
        "罪",
    ]
)
REPLIES = st.one_of(st.text(), st.lists(FRAGMENTS, max_size=12).map("".join))


# One test over every task and both modes, rather than one per task: hypothesis costs about
# 5 ms an example here, and 24 parametrized copies took 25 s of the suite's 28.
@settings(max_examples=600)
@given(task=st.sampled_from(TASKS), data=st.data(), reply=REPLIES)
def test_judge_never_raises(task: str, data: st.DataObject, reply: str) -> None:
    gold = data.draw(GOLDS[task])
    others = data.draw(st.lists(st.sampled_from(CHARGES), max_size=3))
    charges = data.draw(st.sampled_from([(), CHARGES]))
    sample = make_sample(task, gold, others)
    for mode in MODES:
        judgement = judge(task, reply, sample, mode, charges)
        assert not (judgement.correct and judgement.refused)


@settings(max_examples=300)
@given(task=st.sampled_from(TASKS), data=st.data(), rule=st.integers(1, 30))
def test_a_reply_that_is_the_gold_is_right(task: str, data: st.DataObject, rule: int) -> None:
    gold = data.draw(GOLDS[task])
    others = data.draw(st.lists(st.sampled_from(CHARGES), max_size=2))
    charges = data.draw(st.sampled_from([(), CHARGES]))
    sample = make_sample(task, gold, others)
    for mode in MODES:
        judgement = judge(task, natural_reply(task, gold, rule), sample, mode, charges)
        assert (judgement.correct, judgement.refused) == (True, False), mode


def test_unknown_task_lists_the_known_ones_and_suggests() -> None:
    sample = make_sample("deer", "a", [])
    with pytest.raises(ConfigError, match=r"Did you mean 'theoremQA'.*stringgame.*clutrr-cf"):
        judge("theoremqa", "Answer: a.", sample, "paper")


def test_unknown_mode_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="paper, robust"):
        judge("deer", "A.", make_sample("deer", "a", []), "strict")  # type: ignore[arg-type]


def test_every_task_lists_its_fixes_and_each_names_a_documented_fix() -> None:
    modules = (deer, kinship_labels, law, letters, salad, stringgame, theoremqa, ulogic)
    functions = {
        name: function
        for module in modules
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if function.__module__.startswith("rulebench.")
    }
    fixes = robust_fixes()
    assert set(fixes) == set(TASKS)
    for task, names in fixes.items():
        assert names, task
        for name in names:
            assert (functions[name].__doc__ or "").startswith("Fix: "), name
