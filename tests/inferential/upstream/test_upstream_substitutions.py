"""Settings the paper ran that upstream's code cannot build on this Python, and the name it tests.

law samples `dict.keys()` (a TypeError since Python 3.11; CPython 3.10 drew from the keys as a
tuple), and upstream's law-cf branch tests "law_cf" while the release's folder is "law-cf".
Both are built the paper's way and recorded with each item.
"""

import json
import random
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.inferential.item_meta import ItemMeta
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialTask
from rulebench.inferential.upstream.stored import stored_prompts_label

from tests.inferential.upstream.clone_fixture import BUILDS_LAW_CF_CITE, PROCESSOR, make_clone


def _task(clone: Path, task: str, **grid: object) -> InferentialTask:
    return InferentialTask(
        tasks=(task,),
        data_root=str(clone / "dataset"),
        prompts="upstream",
        grid=Grid.model_validate(grid),
    )


def _add_rules(clone: Path, task: str, count: int) -> dict[str, dict[str, str]]:
    path = clone / "dataset" / task / "test_rule.json"
    rules: dict[str, dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
    for number in range(count):
        rules[f"9{number:02d}"] = {"NL": f"our extra rule {number}", "FOL": f"extra({number})"}
    path.write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")
    return rules


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return make_clone(tmp_path)


def test_law_few_rules_build_by_python_3_10s_sampling_rule(clone: Path) -> None:
    rules = json.loads((clone / "dataset" / "law" / "test_rule.json").read_text())
    items = _task(clone, "law", quantities=("few",)).items()
    assert items
    for item in items:
        meta = ItemMeta.read(item.metadata)
        assert "CPython 3.10's random.sample rule" in meta.rule_draw
        golden = meta.listed_rules[(meta.golden_index or 0) - 1]
        # What CPython 3.10 drew: the keys as a tuple, redrawn while they hold the golden rule.
        random.seed(f"0:upstream:law:{meta.setting}:{meta.sample_id}")
        while True:
            noise = random.sample(tuple(rules), 3)
            if golden not in noise:
                break
        assert sorted(meta.listed_rules) == sorted([golden, *noise])
        listed = [rules[i]["NL"] for i in meta.listed_rules]
        assert item.messages[0].content.startswith("<rule>\n" + "\n".join(listed) + "\n</rule>")


def test_law_cf_is_built_by_the_branch_named_law_cf_and_says_so(clone: Path) -> None:
    items = _task(clone, "law-cf", quantities=("golden",), counterfactual=(True,)).items()
    record = json.loads((clone / "dataset" / "law-cf" / "test_data.json").read_text())[0]
    assert items[0].messages[0].content.startswith("<rule>\n")
    assert f"{record['instruction']}{record['input']}" in items[0].messages[0].content
    meta = ItemMeta.read(items[0].metadata)
    assert "upstream's 'law_cf' branch for the release's 'law-cf' folder" in meta.rule_draw
    assert "3.10" not in meta.rule_draw  # the golden-only branch samples nothing


def test_the_report_header_names_the_substitutions(clone: Path) -> None:
    config = _task(clone, "law-cf", quantities=("golden",), counterfactual=(True,)).config()
    label = stored_prompts_label(config)
    assert "law_cf" in label and "3.10" in label
    plain = _task(clone, "deer", quantities=("golden",)).config()
    assert "law_cf" not in stored_prompts_label(plain)


def test_law_cf_rule_citation_lists_ids_and_the_golden_position(tmp_path: Path) -> None:
    clone = make_clone(tmp_path, BUILDS_LAW_CF_CITE)  # a commit before HEAD's f-string
    _add_rules(clone, "law-cf", 5)
    grid = {"quantities": ("few",), "cot": (True,), "counterfactual": (True,)}
    task = _task(clone, "law-cf", cite_rule=True, paper_shots=True, **grid)
    records = json.loads((clone / "dataset" / "law-cf" / "test_data.json").read_text())
    golden_ids = {str(r["rule"][0]) for r in records}
    for item in task.items():
        meta = ItemMeta.read(item.metadata)
        assert len(meta.listed_rules) == 4 and meta.golden_index is not None
        assert meta.listed_rules[meta.golden_index - 1] in golden_ids
        block = item.messages[0].content.split("<rule>\n")[1].split("\n<\\rule>")[0]
        assert [line.split(". ")[0] for line in block.split("\n")] == list(meta.listed_rules)


def test_a_dataset_without_a_branch_is_named(tmp_path: Path) -> None:
    text = PROCESSOR.read_text().replace('["law_cf"]', '["law_cf_old"]')
    clone = make_clone(tmp_path, text)
    with pytest.raises(ConfigError, match="has no branch for dataset 'law_cf'"):
        _task(clone, "law-cf", quantities=("golden",), counterfactual=(True,)).items()


def test_literal_braces_in_an_f_string_are_a_clear_error(clone: Path) -> None:
    # upstream's HEAD writes law-cf's citation demonstration as an f-string with literal braces
    _add_rules(clone, "law-cf", 5)
    grid = {"quantities": ("few",), "cot": (True,), "counterfactual": (True,)}
    with pytest.raises(ConfigError, match="literal braces inside an f-string"):
        _task(clone, "law-cf", cite_rule=True, paper_shots=True, **grid).items()
