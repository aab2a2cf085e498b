"""CAIL2018 (Chinese criminal law): which charge fits the facts of a case?"""

import random

from rulebench.core.rules import Sample
from rulebench.inferential.template import PromptTemplate


def show_case(sample: Sample, rng: random.Random) -> str:
    """The case, after the candidate charges in a seeded order (upstream lists the gold first).

    One numbered charge a line: names contain 、 (盗窃、抢夺枪支、弹药、爆炸物), so joining them
    with 、 would not show where one charge ends and the next begins.
    """
    if sample.counterfactual:
        return sample.question  # law-cf questions carry their own instruction and charge list
    charges = list(sample.candidates)
    rng.shuffle(charges)
    listed = "\n".join(f"{number}. {charge}" for number, charge in enumerate(charges, start=1))
    return f"候选指控（只能选其中一项）：\n{listed}\n{sample.question}"


TEMPLATE = PromptTemplate(
    task_line="请阅读案情，依据下列规则判断被告人应被指控的罪名。",
    answer_line="请只回答一个候选指控的名称（写名称，不写编号），例如“指控：盗窃”。",
    write_answer=lambda gold: f"指控：{gold}",
    show_question=show_case,
    rules_header="规则：",
    question_header="案情：",
    example_header="示例",
    rule_word="规则",
    cf_line="部分规则可能与现实法律不符，请严格按照给出的规则判断。",
    cot_line="请先逐步推理：说明适用哪条规则并据此分析，然后给出答案。",
    cite_line="回答前，请单独一行写出“Applied rule: N”，N 为所用规则的编号。",
    reasoning=lambda rule, answer: f"适用的规则是：{rule} 据此，应指控{answer}。",
)

# law-cf asks for JSON, which its paper-mode scorer parses.
CF_TEMPLATE = PromptTemplate(
    task_line=TEMPLATE.task_line,
    answer_line='请以 JSON 回答：{"rule": 规则编号, "指控": "罪名"}。',
    # Without a listed rule to name (log-likelihood choices, rule-free demonstrations) the
    # number is a placeholder; demonstrations with rules name theirs (`write_cited_answer`).
    write_answer=lambda gold: f'{{"rule": 1, "指控": "{gold}"}}',
    write_cited_answer=lambda gold, rule: f'{{"rule": {rule}, "指控": "{gold}"}}',
    show_question=show_case,
    rules_header=TEMPLATE.rules_header,
    question_header=TEMPLATE.question_header,
    example_header=TEMPLATE.example_header,
    rule_word=TEMPLATE.rule_word,
    cf_line=TEMPLATE.cf_line,
    cot_line=TEMPLATE.cot_line,
    cite_line=TEMPLATE.cite_line,
    reasoning=TEMPLATE.reasoning,
)
