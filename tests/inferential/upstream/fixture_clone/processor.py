# ruff: noqa
# A stand-in for RuleBench's processor.py, written for rulebench's tests: the same module-level
# imports, class, method, args attributes and branch structure per dataset and setting, with
# our own sentences and demonstrations. Never the real file's text.
import json
import random

import pandas as pd
import torch
from torch.utils.data.dataset import Dataset
from torch.utils.data.dataloader import DataLoader


class TaskDataset(Dataset):
    def __init__(self, data):
        self.data = data


class TaskDataProcessor:
    def __init__(self, args):
        self.args = args

    def _draw(self, golden_id, count):
        # Noise ids drawn with replacement, never the golden one, then shuffled.
        keys = sorted(self.test_rule)
        listed = [self.test_rule[str(golden_id)][self.args.rule_type]]
        while len(listed) < count:
            key = random.choice(keys)
            if key != str(golden_id):
                listed.append(self.test_rule[key][self.args.rule_type])
        golden = listed[0]
        random.shuffle(listed)
        return listed, listed.index(golden)

    def prompt(self, samples, all_number=100):
        prompts = []
        if self.args.dataset.lower() in ["clutrr", "clutrr-minor"]:
            for sample in samples:
                question = f"{sample['instruction']}{sample['input']}"
                golden = sample["rule"][0]
                if self.args.analysis_behaviour:
                    listed, index = self._draw(golden, 3)
                    case = (
                        "<rule>\n"
                        + "\n".join(listed)
                        + "\n<\\rule>\n<question>\n"
                        + question
                        + "\n<\\question>\n<answer>\n"
                    )
                    prompt = ("\nDEMO-CLUTRR-CITE\n" + "\n" + case, [sample, index, listed[index]])
                elif self.args.rule_setting == "no_rule":
                    if self.args.few_shot:
                        demo = (
                            "\nDEMO-CLUTRR-NONE-COT\n" if self.args.cot else "\nDEMO-CLUTRR-NONE\n"
                        )
                        prompt = f"{demo}\n{question}"
                    else:
                        prompt = f"{question}"
                elif self.args.rule_setting == "golden_rule":
                    rule = self.test_rule[str(golden)][self.args.rule_type]
                    case = f"<rule>\n{rule}\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                    if self.args.few_shot:
                        demo = (
                            "\nDEMO-CLUTRR-GOLDEN-COT\n"
                            if self.args.cot
                            else "\nDEMO-CLUTRR-GOLDEN\n"
                        )
                        prompt = f"{demo}\n{case}"
                    else:
                        prompt = case
                elif self.args.rule_setting == "few_rule":
                    listed, _ = self._draw(golden, 3)
                    case = (
                        "<rule>\n"
                        + "\n".join(listed)
                        + f"\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                    )
                    if self.args.few_shot:
                        demo = "\nDEMO-CLUTRR-FEW-COT\n" if self.args.cot else "\nDEMO-CLUTRR-FEW\n"
                        prompt = f"{demo}\n{case}"
                    else:
                        prompt = case
                elif self.args.rule_setting == "all_rule":
                    listed, _ = self._draw(golden, 30)
                    prompt = (
                        "<rule>\n"
                        + "\n".join(listed)
                        + f"\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                    )
                prompts.append(prompt)
        elif self.args.dataset.lower() == "clutrr-cf":
            for sample in samples:
                question = f"{sample['instruction']}{sample['input']}"
                golden = sample["rule"][0]
                if self.args.analysis_behaviour:
                    listed, index = self._draw(golden, 3)
                    case = (
                        "<rule>\n"
                        + "\n".join(listed)
                        + f"\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                    )
                    prompt = (
                        "\nDEMO-CLUTRR-CF-CITE\n" + "\n" + case,
                        [sample, index, listed[index]],
                    )
                elif self.args.rule_setting == "golden_rule":
                    rule = self.test_rule[str(golden)][self.args.rule_type]
                    case = f"<rule>\n{rule}\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                    prompt = f"\nDEMO-CLUTRR-CF-GOLDEN\n\n{case}" if self.args.few_shot else case
                elif self.args.rule_setting == "few_rule":
                    listed, _ = self._draw(golden, 3)
                    case = (
                        "<rule>\n"
                        + "\n".join(listed)
                        + f"\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                    )
                    prompt = f"\nDEMO-CLUTRR-CF-FEW\n\n{case}" if self.args.few_shot else case
                prompts.append(prompt)
        elif self.args.dataset.lower() == "deer":
            for sample in samples:
                question = f"{sample['instruction']}{sample['input']}"
                golden = sample["rule"][0]
                if self.args.rule_setting == "no_rule":
                    prompt = f"{question}"
                elif self.args.rule_setting == "golden_rule":
                    rule = self.test_rule[str(golden)][self.args.rule_type]
                    prompt = f"<rule>\n{rule}\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                elif self.args.rule_setting in ("few_rule", "all_rule"):
                    listed, _ = self._draw(
                        golden, 3 if self.args.rule_setting == "few_rule" else 30
                    )
                    prompt = (
                        "<rule>\n"
                        + "\n".join(listed)
                        + f"\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                    )
                prompts.append(prompt)
        elif self.args.dataset.lower() == "theoremqa":
            for sample in samples:
                count = {
                    "no_rule": 0,
                    "golden_rule": 1,
                    "few_rule": 3,
                    "all_rule": 5,
                    "analysis_behaviour": 3,
                }[self.args.rule_setting]
                text = ""
                if count:
                    ids = random.sample(sorted(self.test_rule), min(count, len(self.test_rule)))
                    if str(sample["rule"][0]) not in ids:
                        ids = ([str(sample["rule"][0])] + ids)[:count]
                    random.shuffle(ids)
                    for rule_id in ids:
                        rule = self.test_rule[rule_id][self.args.rule_type]
                        if "Llama-2" in self.args.model_name_or_path:
                            rule = " ".join(rule.split(" ")[:3])
                        text += f"[id {rule_id}] {rule}\n"
                raw = f"{sample['instruction']}\n{sample['input']}"
                ask = "THINK-THEN-ANSWER" if self.args.cot else "ANSWER-DIRECTLY"
                demo = "DEMO-THEOREMQA\n" if self.args.few_shot else ""
                if self.args.analysis_behaviour:
                    prompt = (f"{demo}\n{text}\n{ask}\n{raw}\n", [sample, sample["rule"][0], None])
                elif self.args.rule_setting in {"no_rule", "golden_rule", "few_rule", "all_rule"}:
                    prompt = f"{demo}\n{text}\n{ask}\n{raw}\n"
                else:
                    raise Exception("Unknown setting")
                prompts.append(prompt)
        elif self.args.dataset.lower().startswith("ulogic"):
            if self.args.analysis_behaviour:
                for sample in samples:
                    pool = [self.test_rule[k][self.args.rule_type] for k in self.test_rule]
                    ids = {r[self.args.rule_type]: k for k, r in self.test_rule.items()}
                    picked = random.sample(pool, min(3, len(pool)))
                    golden = self.test_rule[str(sample["rule"][0])][self.args.rule_type]
                    if golden not in picked:
                        picked = ([golden] + picked)[:3]
                    random.shuffle(picked)
                    text = "".join(f"[id {ids[r]}] {r}\n" for r in picked)
                    case = f"DEMO-ULOGIC-CITE\n\n{text}\nSAY-RULE-ID\n{sample['input']}\n"
                    prompts.append((case, [sample, sample["rule"][0], golden]))
                return prompts
            for sample in samples:
                count = {
                    "no_rule": 0,
                    "golden_rule": 1,
                    "few_rule": 3,
                    "all_rule": 30,
                    "analysis_behaviour": 3,
                }[self.args.rule_setting]
                follow = "FOLLOW-THE-RULES\n" if count else ""
                text = ""
                if count:
                    rule = self.test_rule[str(sample["rule"][0])][self.args.rule_type]
                    text = f"[id {sample['rule'][0]}] {rule}\n"
                prompt = f"\n{text}\n{follow}{sample['instruction']}\n{sample['input']}\n"
                prompts.append(prompt)
        elif self.args.dataset.lower() in ["law"]:
            for sample in samples:
                question = f"{sample['instruction']}{sample['input']}"
                if self.args.rule_setting == "golden_rule":
                    rule = self.test_rule[str(sample["rule"][0])][self.args.rule_type]
                    prompt = f"<rule>\n{rule}\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                elif self.args.rule_setting == "few_rule":
                    golden = str(sample["rule"][0])
                    listed = [self.test_rule[golden][self.args.rule_type]]
                    while True:
                        picked = random.sample(self.test_rule.keys(), 3)
                        if golden not in picked:
                            listed += [self.test_rule[k][self.args.rule_type] for k in picked]
                            break
                    random.shuffle(listed)
                    prompt = "<rule>\n" + "\n".join(listed) + f"\n</rule>\n{question}\n"
                prompts.append(prompt)
        elif self.args.dataset.lower() in ["law_cf"]:
            for sample in samples:
                question = f"{sample['instruction']}{sample['input']}"
                golden = str(sample["rule"][0])
                if self.args.analysis_behaviour:
                    listed = [golden + ". " + self.test_rule[golden][self.args.rule_type]]
                    while True:
                        picked = random.sample(self.test_rule.keys(), 3)
                        if golden not in picked:
                            for key in picked:
                                listed.append(key + ". " + self.test_rule[key][self.args.rule_type])
                            break
                    random.shuffle(listed)
                    demo = """DEMO-LAW-CF-CITE {"rule":1,"charge":"x"}\n"""
                    case = "<rule>\n" + "\n".join(listed) + f"\n<\\rule>\n{question}\n"
                    prompt = (f"{demo}\n{case}", [sample, golden, listed[0]])
                elif self.args.rule_setting == "golden_rule":
                    rule = self.test_rule[golden][self.args.rule_type]
                    prompt = f"<rule>\n{rule}\n<\\rule>\n{question}\n"
                prompts.append(prompt)
        elif self.args.dataset.lower() in ["salad", "salad-cf"]:
            head = "\nCATEGORY-LIST\n\n"
            for sample in samples:
                golden = sample["rule"]
                if self.args.rule_setting == "no_rule":
                    prompt = f"{head}text: {sample['input']}\ncategory: "
                elif self.args.rule_setting == "golden_rule":
                    rule = self.test_rule[str(golden)][self.args.rule_type]
                    prompt = f"{head}rule: {rule}\ntext: {sample['input']}\ncategory: "
                else:
                    listed, index = self._draw(golden, 3)
                    numbered = "\n".join(f"rule{i + 1}: {r}" for i, r in enumerate(listed))
                    prompt = f"{head}{numbered}\ntext: {sample['input']}\ncategory: "
                    if self.args.analysis_behaviour:
                        prompt = (prompt, [sample, index, listed[index]])
                prompts.append(prompt)
        else:
            raise ValueError("unknown dataset")
        return prompts
