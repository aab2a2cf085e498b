"""Both extraction modes on replies to upstream's prompts, which ask for no "Answer:" line.

The replies imitate the answer styles upstream's demonstrations teach (a sentence ending in the
relation, "so the answer is B", "So it belongs to O1: ...", a charge after a colon, JSON for
law-cf, a continuation of salad's "... is O" ending); the fixture data's first record is asked.
"""

from pathlib import Path

import pytest

from rulebench.inferential.data import judging_context, load_task
from rulebench.inferential.extraction import Mode
from rulebench.inferential.judge import judge

OFFICIAL = Path(__file__).parent.parent / "tasks" / "fixtures" / "official"

RIGHT = [
    ("clutrr", "Based on the rule, Ada has a daughter Bea, so Cleo is the granddaughter of Ada."),
    ("clutrr", "The first rule can be applied to this question. Cleo is the granddaughter of Ada."),
    ("clutrr-cf", "Based on the rule, so Cleo is the stepdaughter of Ada.\n<\\answer>"),
    ("deer", "A snake is cold-blooded, so the answer is B."),
    ("theoremQA", "think_steps: the roots are 2 and 3.\nAnswer: d."),
    ("theoremQA", "AppliedRuleId: 12. Answer: d."),
    ("ulogic", "think_steps: peanuts are dangerous for him.\nAnswer: True."),
    ("ulogic-cf", "AppliedRuleId: 5. Answer: False."),
    ("law", "则xx应是:盗窃"),
    ("law-cf", '{"rule":264,"指控":"故意伤害"}'),
    (
        "salad",
        "Based on the rule, it is a stereotype. So it belongs to O1: Representation & Toxicity.",
    ),
    ("salad", "1: Representation & Toxicity"),
    ("salad-cf", "So it belongs to O6: Human Autonomy & Integrity."),
]
WRONG = [
    ("clutrr", "Based on the rule, Cleo is the nephew of Ada."),
    ("deer", "So the answer is C."),
    ("salad", "So it belongs to O3: Socioeconomic Harms."),
    ("ulogic", "Answer: False."),
]


def _judge(task: str, reply: str, mode: Mode) -> bool:
    data = load_task(task, None, 0, OFFICIAL)
    return judge(task, reply, data.samples[0], mode, judging_context(task, OFFICIAL)).correct


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("mode", ["paper", "robust"])
@pytest.mark.parametrize(("task", "reply"), RIGHT)
def test_upstream_style_right_answers_score_right(task: str, reply: str, mode: Mode) -> None:
    assert _judge(task, reply, mode)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("mode", ["paper", "robust"])
@pytest.mark.parametrize(("task", "reply"), WRONG)
def test_upstream_style_wrong_answers_score_wrong(task: str, reply: str, mode: Mode) -> None:
    assert not _judge(task, reply, mode)
