"""law-cf demonstrations name the rule they apply, as the answer format asks."""

import json
import re
from pathlib import Path

from rulebench.inferential.data import load_task
from rulebench.inferential.prompts import render_demo, template_for
from rulebench.inferential.rule_lists import list_rules
from rulebench.inferential.settings import Setting

OFFICIAL = Path(__file__).parent / "tasks" / "fixtures" / "official"
ANSWER = re.compile(r'^\{"rule": .*\}$', re.MULTILINE)


def test_each_demonstration_cites_its_golden_rules_position() -> None:
    data = load_task("law-cf", None, 0, OFFICIAL)
    rules = data.rules_of_demos()  # demonstrations list rules of their own
    template = template_for("law-cf")
    cited = set()
    for seed in range(12):
        setting = Setting(quantity="all", shots=2, counterfactual=True, seed=seed)
        for demo in data.demos:
            listing = list_rules(demo, setting, rules)
            assert listing.golden_index is not None
            text = render_demo(demo, 1, setting, template, rules)
            [answer] = ANSWER.findall(text)
            assert json.loads(answer)["rule"] == listing.golden_index + 1
            cited.add(listing.golden_index + 1)
    assert len(cited) > 1  # the golden rule moves, and the cited number with it


def test_a_demonstration_without_rules_keeps_the_answer_format() -> None:
    data = load_task("law-cf", None, 0, OFFICIAL)
    setting = Setting(quantity="none", shots=2, counterfactual=True, seed=0)
    demo_rules = data.rules_of_demos()
    text = render_demo(data.demos[0], 1, setting, template_for("law-cf"), demo_rules)
    assert len(ANSWER.findall(text)) == 1
