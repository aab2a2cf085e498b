"""The trigger/execution split on replies to upstream's prompts, in upstream's citation formats.

Upstream's behaviour-analysis demonstrations teach an ordinal word (clutrr, salad), an
`AppliedRuleId: N` line (theoremQA, ulogic) and a JSON `{"rule": N}` (law-cf). Scripted replies
in each format, wrong on purpose, run through the engine into a real store, on every dataset
upstream has a rule-citation prompt for: citing a noise rule is a triggering error, citing the
golden rule an execution error.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.inferential.analysis import (
    Record,
    classify_as_upstream,
    classify_error,
    error_split_by,
    to_records,
)
from rulebench.inferential.citation import upstream_citation
from rulebench.inferential.item_meta import ItemMeta
from rulebench.inferential.registry import task_definition
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialTask

from tests.inferential.upstream.clone_fixture import BUILDS_LAW_CF_CITE, make_clone

ORDINALS = ("first", "second", "third")
CITES = ("clutrr", "clutrr-cf", "theoremQA", "ulogic", "ulogic-cf", "law-cf", "salad", "salad-cf")
"""The datasets upstream's `prompt` has a behaviour-analysis (rule-citation) branch for."""


def _wrong_reply(task: str, listed: tuple[str, ...], position: int) -> str:
    """A wrong answer citing the rule at `position` (1-based) in upstream's format."""
    if task.startswith(("clutrr", "salad")):
        word = ORDINALS[position - 1]
        return f"The {word} rule can be applied to this question. So the answer is nobody."
    if task.startswith(("ulogic", "theoremQA")):
        return f"AppliedRuleId: {listed[position - 1]}. Answer: Maybe."
    return json.dumps({"rule": int(listed[position - 1]), "指控": "无此指控"}, ensure_ascii=False)


def _add_rules(clone: Path, task: str) -> None:
    path = clone / "dataset" / task / "test_rule.json"
    rules = json.loads(path.read_text(encoding="utf-8"))
    rules.update({f"9{n:02d}": {"NL": f"our extra rule {n}", "FOL": f"x({n})"} for n in range(5)})
    path.write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize("task", CITES)
@pytest.mark.parametrize("cite", ["noise", "golden"])
def test_upstream_citations_split_wrong_answers(tmp_path: Path, task: str, cite: str) -> None:
    # law-cf's rule-citation prompt builds only on clones older than upstream's HEAD
    clone = make_clone(tmp_path, BUILDS_LAW_CF_CITE if task == "law-cf" else None)
    _add_rules(clone, "law-cf")
    _add_rules(clone, "salad-cf")
    counterfactual = task.endswith("-cf")
    grid = {"quantities": ("few",), "cot": (True,), "counterfactual": (counterfactual,)}
    items = InferentialTask(
        tasks=(task,),
        data_root=str(clone / "dataset"),
        prompts="upstream",
        upstream_model_name="rules",
        grid=Grid.model_validate({**grid, "cite_rule": True, "paper_shots": True}),
    ).items()
    rules = []
    for item in items:
        meta = ItemMeta.read(item.metadata)
        assert meta.golden_index is not None and len(meta.listed_rules) >= 3
        noise = next(i for i in range(1, 4) if i != meta.golden_index)
        position = meta.golden_index if cite == "golden" else noise
        reply = _wrong_reply(task, meta.listed_rules, position)
        rules.append({"contains": item.messages[0].content[-300:], "reply": reply})
    script = tmp_path / "rules.json"
    script.write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")
    store = str(tmp_path / "runs.sqlite")
    args = ["run", "inferential", "-t", task, "--data-root", str(clone / "dataset")]
    args += ["--prompts", "upstream", "-q", "few", "--cot", "on"]
    args += ["--counterfactual", "on" if counterfactual else "off"]
    args += [
        "--shots",
        str(task_definition(task).paper_shots),
        "--cite-rule",
        "-m",
        "scripted/rules",
    ]
    args += ["-M", f"rules={script}", "--store", store, "--extract", "paper"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        records = to_records(db.iter_results(db.list_runs()[0].id), "paper")
    assert len(records) == len(items)
    expected = "execution" if cite == "golden" else "triggering"
    assert [classify_error(r) for r in records] == [expected] * len(records)
    # upstream's parse compares law-cf's JSON number with the golden id as a string
    as_upstream = "triggering" if task == "law-cf" else expected
    assert [classify_as_upstream(r) for r in records] == [as_upstream] * len(records)


def test_an_uncited_or_unlisted_rule_is_no_citation() -> None:
    listed = ("12", "7", "30")
    assert upstream_citation("theoremQA", listed)("AppliedRuleId: 30. Answer: a.") == 3
    assert upstream_citation("theoremQA", listed)("AppliedRuleId: 99. Answer: a.") is None
    assert upstream_citation("law-cf", listed)('{"rule":"7","指控":"x"} tail') == 2
    assert upstream_citation("law-cf", listed)("no json here") is None
    assert upstream_citation("salad", listed)("Based on the third rule, it is O2.") == 3
    assert upstream_citation("clutrr", listed)("Firstly, I think it is the aunt.") is None


def _wrong(task: str, cited: int | None, golden: int, json_number: bool = False) -> Record:
    return Record(
        task=task,
        quantity="few",
        form="nl",
        cot=True,
        counterfactual=True,
        correct=False,
        cited=cited,
        golden_index=golden,
        listed=3,
        cite_rule=True,
        json_number_citation=json_number,
    )


@pytest.mark.parametrize(
    ("record", "ours", "theirs"),
    [
        # upstream's ordinal reader returns False for no ordinal, and False == position 0
        (_wrong("clutrr-cf", None, 1), "no citation", "execution"),
        (_wrong("salad", None, 2), "no citation", "triggering"),
        # a missing rule id differs from the golden one: a triggering error upstream
        (_wrong("ulogic-cf", None, 1), "no citation", "triggering"),
        (_wrong("theoremQA", 2, 2), "execution", "execution"),
        # law-cf's JSON number never equals the golden id, a string, upstream
        (_wrong("law-cf", 2, 2, json_number=True), "execution", "triggering"),
        (_wrong("law-cf", 2, 2), "execution", "execution"),
        (_wrong("law-cf", None, 2), "no citation", "triggering"),
    ],
)
def test_upstreams_counting_has_no_uncited_class(record: Record, ours: str, theirs: str) -> None:
    assert classify_error(record) == ours
    assert classify_as_upstream(record) == theirs
    split = error_split_by([record], lambda r: r.task, "upstream")[record.task]
    assert set(split) == {"triggering", "execution"} and split[theirs].value == 1.0


def test_a_right_answer_is_no_error_either_way() -> None:
    right = _wrong("clutrr", None, 1)._replace(correct=True)
    assert classify_error(right) is None and classify_as_upstream(right) is None
