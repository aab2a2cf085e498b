# ruff: noqa
# A stand-in for RuleBench's processor.py, written for rulebench's tests: the same module-level
# imports, class, method, args attributes and branch structure per dataset and setting, with
# our own sentences and demonstrations. Never the real file's text.
# Shaped like upstream's HEAD (ef7047a): theoremQA and ulogic list rules inside id tags, law
# ranks three candidate charges and shuffles them after the rules, and law_cf's rule-citation
# demonstration is an f-string holding literal braces, so that setting raises ValueError
# ("Invalid format specifier") as upstream's does. `clone_fixture.BUILDS_LAW_CF_CITE` is the
# older shape, where it builds.
import json
import random

import pandas as pd
import torch
from torch.utils.data.dataset import Dataset
from torch.utils.data.dataloader import DataLoader


CHARGES = ["盗窃", "抢劫", "诈骗", "合同诈骗", "信用卡诈骗", "故意伤害", "侵占", "敲诈勒索"]
DEMO_RULES = "<rule>\nour demo rule one\nour demo rule two\n<\\rule>\n"


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

    def _id_block(self, sample, count):
        # Rule texts sampled from the whole file, the golden one put first if missing, shuffled,
        # each shown under the id its text maps to (the last id holding that text).
        if count == 0:
            return ""
        pool = [rule[self.args.rule_type] for rule in self.test_rule.values()]
        text_to_id = {rule[self.args.rule_type]: key for key, rule in self.test_rule.items()}
        picked = random.sample(pool, min(count, len(pool)))
        golden = self.test_rule[str(sample["rule"][0])][self.args.rule_type]
        if golden not in picked:
            picked = ([golden] + picked)[:count]
        random.shuffle(picked)
        block = "<rules>\n"
        for text in picked:
            shown = text
            if "Llama-2" in self.args.model_name_or_path:
                shown = " ".join(text.split(" ")[:3])
            block += f"<rule id>{text_to_id[text]}</rule id>\n<rule content>\n{shown}\n"
        return block + "</rules>\n"

    def _charges(self, sample):
        # The gold charge and the two sharing most characters with it, shuffled.
        gold = sample["output"].strip()
        ranked = sorted(CHARGES, key=lambda c: -len(set(c) & set(gold)))
        picked = [gold] + [c for c in ranked if c != gold][:2]
        random.shuffle(picked)
        return "PICK-ONE-CHARGE " + "/".join(picked) + "\n"

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
                    demo = "\nDEMO-CLUTRR-CITE\n" + DEMO_RULES
                    prompt = (demo + "\n" + case, [sample, index, listed[index]])
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
                        demo += DEMO_RULES
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
                text = self._id_block(sample, count)
                raw = f"{sample['instruction']}\n{sample['input']}"
                ask = "THINK-THEN-ANSWER" if self.args.cot else "ANSWER-DIRECTLY"
                demo = ""
                if self.args.few_shot:
                    demo = "DEMO-THEOREMQA\n<rules>\n<rule id>9999</rule id>\n<rule content>\nour demo rule\n</rules>\n"
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
                    golden = self.test_rule[str(sample["rule"][0])][self.args.rule_type]
                    text = self._id_block(sample, 3)
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
                text = self._id_block(sample, count)
                prompt = f"\n{text}\n{follow}{sample['instruction']}\n{sample['input']}\n"
                prompts.append(prompt)
        elif self.args.dataset.lower() in ["law"]:
            for sample in samples:
                golden = str(sample["rule"][0])
                prompt = None
                if self.args.rule_setting == "no_rule":
                    prompt = f"{self._charges(sample)}{sample['input']}\n"
                elif self.args.rule_setting == "golden_rule":
                    rule = self.test_rule[golden][self.args.rule_type]
                    question = f"{self._charges(sample)}{sample['input']}"
                    prompt = f"<rule>\n{rule}\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
                    if self.args.few_shot:
                        prompt = "DEMO-LAW\n" + DEMO_RULES + "\n" + prompt
                elif self.args.rule_setting == "few_rule":
                    listed = [self.test_rule[golden][self.args.rule_type]]
                    while True:
                        picked = random.sample(self.test_rule.keys(), 3)
                        if golden not in picked:
                            listed += [self.test_rule[k][self.args.rule_type] for k in picked]
                            break
                    random.shuffle(listed)
                    question = f"{self._charges(sample)}{sample['input']}"
                    prompt = "<rule>\n" + "\n".join(listed) + f"\n</rule>\n{question}\n"
                    if self.args.few_shot:
                        prompt = "DEMO-LAW\n" + DEMO_RULES + "\n" + prompt
                elif self.args.rule_setting == "all_rule":
                    listed = [self.test_rule[golden][self.args.rule_type]]
                    ids = random.sample(self.test_rule.keys(), all_number)
                    if golden not in ids:
                        ids.pop()
                        listed += [self.test_rule[k][self.args.rule_type] for k in ids]
                    else:
                        listed = [self.test_rule[k][self.args.rule_type] for k in ids]
                    random.shuffle(listed)
                    question = f"{self._charges(sample)}{sample['input']}"
                    prompt = (
                        "<rule>\n"
                        + "\n".join(listed)
                        + f"\n<\\rule>\n<question>\n{question}\n<\\question>\n"
                    )
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
                    demo = f"""DEMO-LAW-CF-CITE {"rule":1,"charge":"x"}\n"""
                    charges = self._charges(sample)
                    case = "<rule>\n" + "\n".join(listed) + f"\n<\\rule>\n{charges}{question}\n"
                    prompt = (f"{demo}\n{case}", [sample, golden, listed[0]])
                elif self.args.rule_setting == "golden_rule":
                    rule = self.test_rule[golden][self.args.rule_type]
                    prompt = f"<rule>\n{rule}\n<\\rule>\n{self._charges(sample)}{question}\n"
                elif self.args.rule_setting == "few_rule":
                    listed = [self.test_rule[golden][self.args.rule_type]]
                    while True:
                        picked = random.sample(self.test_rule.keys(), 3)
                        if golden not in picked:
                            listed += [self.test_rule[k][self.args.rule_type] for k in picked]
                            break
                    random.shuffle(listed)
                    charges = self._charges(sample)
                    prompt = "<rule>\n" + "\n".join(listed) + f"\n<\\rule>\n{charges}{question}\n"
                prompts.append(prompt)
        elif self.args.dataset.lower() in ["salad", "salad-cf"]:
            head = "\nCATEGORY-LIST\n\n"
            if self.args.few_shot:
                head += "rule1: our demo rule\ntext: a demo text\ncategory: O1\n\n"
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
