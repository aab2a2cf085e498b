"""`--prompts upstream`: the clone's own prompt builder, run in a child, exactly and seeded.

The fixture clone's processor.py is ours (upstream's shape, our strings); every expected prompt
below is written from that file's strings and the fixture data.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.items import Item
from rulebench.inferential.item_meta import ItemMeta
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialTask

from tests.inferential.upstream.clone_fixture import COMMIT, PROCESSOR, make_clone


def _task(clone: Path, tasks: tuple[str, ...], **grid: object) -> InferentialTask:
    return InferentialTask(
        tasks=tasks,
        data_root=str(clone / "dataset"),
        prompts="upstream",
        grid=Grid.model_validate(grid),
    )


def _record(clone: Path, task: str, index: int = 0) -> dict[str, object]:
    records = json.loads((clone / "dataset" / task / "test_data.json").read_text())
    record: dict[str, object] = records[index]
    return record


def _rule(clone: Path, task: str, rule_id: object, form: str = "NL") -> str:
    rules = json.loads((clone / "dataset" / task / "test_rule.json").read_text())
    text: str = rules[str(rule_id)][form]
    return text


def _by_setting(items: list[Item], setting: str) -> list[Item]:
    return [item for item in items if ItemMeta.read(item.metadata).setting == setting]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return make_clone(tmp_path)


def test_clutrr_prompts_are_the_clones_layout_around_the_record(clone: Path) -> None:
    items = _task(clone, ("clutrr",), quantities=("none", "golden")).items()
    record = _record(clone, "clutrr")
    question = f"{record['instruction']}{record['input']}"
    none = _by_setting(items, "none/nl/direct")[0]
    assert none.messages[0].content == question
    golden = _by_setting(items, "golden/nl/direct")[0]
    rule = _rule(clone, "clutrr", 0)
    expected = f"<rule>\n{rule}\n<\\rule>\n<question>\n{question}\n<\\question>\n<answer>\n"
    assert golden.messages[0].content == expected
    assert len(golden.messages) == 1 and golden.messages[0].role == "user"


def test_few_shot_and_cot_select_the_clones_demonstration_branch(clone: Path) -> None:
    items = _task(clone, ("clutrr",), quantities=("golden",), cot=(False, True), paper_shots=True)
    built = items.items()
    record = _record(clone, "clutrr")
    case = (
        f"<rule>\n{_rule(clone, 'clutrr', 0)}\n<\\rule>\n<question>\n"
        f"{record['instruction']}{record['input']}\n<\\question>\n<answer>\n"
    )
    direct = _by_setting(built, "golden/nl/direct/2-shot")[0].messages[0].content
    cot = _by_setting(built, "golden/nl/cot/2-shot")[0].messages[0].content
    assert direct == "\nDEMO-CLUTRR-GOLDEN\n\n" + case
    assert cot == "\nDEMO-CLUTRR-GOLDEN-COT\n\n" + case


def test_fol_and_salad_and_ulogic_branches(clone: Path) -> None:
    salad = _task(clone, ("salad",), quantities=("golden",), forms=("fol",)).items()[0]
    record = _record(clone, "salad")
    rule = _rule(clone, "salad", record["rule"], "FOL")
    expected = f"\nCATEGORY-LIST\n\nrule: {rule}\ntext: {record['input']}\ncategory: "
    assert salad.messages[0].content == expected
    ulogic = _task(clone, ("ulogic",), quantities=("none", "golden")).items()
    raw = _record(clone, "ulogic")
    rule_id = raw["rule"][0]  # type: ignore[index]
    rule = _rule(clone, "ulogic", rule_id)
    listed = f"<rules>\n<rule id>{rule_id}</rule id>\n<rule content>\n{rule}\n</rules>\n"
    question = f"{raw['instruction']}\n{raw['input']}\n"
    assert _by_setting(ulogic, "none/nl/direct")[0].messages[0].content == f"\n\n{question}"
    golden = _by_setting(ulogic, "golden/nl/direct")[0].messages[0].content
    assert golden == f"\n{listed}\nFOLLOW-THE-RULES\n{question}"


def test_deer_few_shot_prompts_equal_its_zero_shot_ones(clone: Path) -> None:
    task = _task(clone, ("deer",), quantities=("golden",))
    zero = task.items()[0].messages[0].content
    shot = _task(clone, ("deer",), quantities=("golden",), shots=2).items()[0].messages[0].content
    assert zero == shot


def test_the_model_name_reaches_upstreams_code(tmp_path: Path, clone: Path) -> None:
    def theorem(model: str) -> str:
        task = InferentialTask(
            tasks=("theoremQA",),
            data_root=str(clone / "dataset"),
            prompts="upstream",
            upstream_model_name=model,
            grid=Grid(quantities=("golden",)),
        )
        return task.items()[0].messages[0].content

    full, cut = theorem("org/some-model"), theorem("org/Llama-2-7b-chat-hf")
    rule_id = _record(clone, "theoremQA")["rule"][0]  # type: ignore[index]
    rule = _rule(clone, "theoremQA", rule_id)
    shown = f"<rule id>{rule_id}</rule id>\n<rule content>\n"
    assert f"{shown}{rule}\n" in full
    assert f"{shown}{' '.join(rule.split(' ')[:3])}\n" in cut


def test_upstreams_draws_are_seeded_per_item_by_rulebench(clone: Path) -> None:
    def prompts(seed: int) -> list[str]:
        task = InferentialTask(
            tasks=("clutrr",),
            data_root=str(clone / "dataset"),
            prompts="upstream",
            seed=seed,
            grid=Grid(quantities=("all",), seed=seed),
        )
        return [item.messages[0].content for item in task.items()]

    assert prompts(3) == prompts(3)
    assert prompts(3) != prompts(4)


def test_the_clone_and_the_rule_draw_are_recorded(clone: Path) -> None:
    task = _task(clone, ("clutrr",), quantities=("few",))
    source = task.settings.upstream_source
    assert source is not None and source.revision == f"commit {COMMIT}"
    assert source.root == str(clone.resolve())
    meta = ItemMeta.read(task.items()[0].metadata)
    assert meta.prompts == "upstream"
    assert meta.rule_draw == "upstream's, seeded by rulebench (seed 0)"
    assert task.config()["prompts"] == "upstream"


def test_rule_citation_uses_the_golden_position_upstream_reports(clone: Path) -> None:
    grid = {"quantities": ("few",), "cot": (True,), "counterfactual": (True,)}
    task = _task(clone, ("clutrr-cf",), cite_rule=True, paper_shots=True, **grid)
    for item in task.items():
        meta = ItemMeta.read(item.metadata)
        content = item.messages[0].content
        assert content.startswith("\nDEMO-CLUTRR-CF-CITE\n\n<rule>\n")
        listed = content.split("<rule>\n")[1].split("\n<\\rule>")[0].split("\n")
        assert meta.golden_index is not None
        rules = json.loads((clone / "dataset" / "clutrr-cf" / "test_rule.json").read_text())
        golden_ids = {
            str(r["rule"][0])
            for r in json.loads((clone / "dataset" / "clutrr-cf" / "test_data.json").read_text())
        }
        assert listed[meta.golden_index - 1] in {rules[i]["NL"] for i in golden_ids}


def test_item_ids_and_messages_differ_between_the_wordings(clone: Path) -> None:
    def items(prompts: str) -> list[Item]:
        return InferentialTask(
            tasks=("deer",),
            data_root=str(clone / "dataset"),
            prompts=prompts,
            grid=Grid(quantities=("none", "golden")),
        ).items()

    ours, theirs = items("rulebench"), items("upstream")
    assert len(ours) == len(theirs)
    assert not {item.id for item in ours} & {item.id for item in theirs}
    assert all(a.messages != b.messages for a, b in zip(ours, theirs, strict=True))
    assert all(ItemMeta.read(item.metadata).prompts == "rulebench" for item in ours)


def test_rendering_never_imports_the_clones_dependencies(clone: Path) -> None:
    # A fresh interpreter: other tests in this process may have imported pandas themselves.
    script = (
        "import sys\n"
        "from rulebench.inferential.settings import Grid\n"
        "from rulebench.inferential.task import InferentialTask\n"
        "items = InferentialTask(tasks=('clutrr',), data_root=sys.argv[1], prompts='upstream',"
        " grid=Grid(quantities=('few',))).items()\n"
        "assert items, 'no items were built'\n"
        "loaded = [n for n in sys.modules if n.split('.')[0] in"
        " ('torch', 'pandas', 'upstream_processor')]\n"
        "print(','.join(loaded) or 'none')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(clone / "dataset")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "none"


@pytest.mark.parametrize(
    ("task", "grid", "says"),
    [
        ("clutrr-cf", {"quantities": ("all",)}, "no branch for this setting"),
        ("ulogic-cf", {"quantities": ("golden",), "forms": ("fol",)}, "no FOL form"),
        ("law-cf", {"quantities": ("all",)}, "no branch for this setting"),
    ],
)
def test_settings_upstream_cannot_build_are_one_clear_error(
    clone: Path, task: str, grid: dict[str, object], says: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _task(clone, (task,), **grid).items()
    message = str(caught.value)
    assert str(clone / "processor.py") in message and task in message and says in message


def test_generated_tasks_have_no_upstream_prompts(clone: Path) -> None:
    with pytest.raises(ConfigError, match="generated by rulebench"):
        _task(clone, ("kinship",), quantities=("few",)).items()


def test_without_a_clone_the_error_names_what_to_clone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with pytest.raises(ConfigError) as caught:
        InferentialTask(tasks=("clutrr",), data_root=str(data), prompts="upstream")
    message = str(caught.value)
    assert "forangel2014/llm-rule-following" in message and "--upstream" in message
    assert str(tmp_path / "processor.py") in message


def test_an_explicit_upstream_path_is_used(tmp_path: Path, clone: Path) -> None:
    elsewhere = tmp_path / "data"
    (clone / "dataset").rename(elsewhere)
    task = InferentialTask(
        tasks=("deer",), data_root=str(elsewhere), prompts="upstream", upstream=str(clone)
    )
    assert task.settings.upstream_source is not None
    assert task.items()[0].messages[0].content.startswith("<rule>\n")


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda text: text.replace("class TaskDataProcessor", "class Other"), "no class"),
        (lambda text: text.replace("def prompt(", "def build("), "has no method prompt"),
        (
            lambda text: text.replace("import random\n", "import random\nraise OSError('x1')\n"),
            "OSError: x1",
        ),
    ],
)
def test_a_changed_processor_names_the_file_and_the_missing_piece(
    tmp_path: Path, edit: object, says: str
) -> None:
    text = edit(PROCESSOR.read_text())  # type: ignore[operator]
    clone = make_clone(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        _task(clone, ("deer",), quantities=("golden",)).items()
    assert str(clone / "processor.py") in str(caught.value) and says in str(caught.value)


def test_resuming_with_a_changed_clone_is_refused(clone: Path) -> None:
    task = _task(clone, ("deer",), quantities=("golden",))
    config = task.config()
    processor = clone / "processor.py"
    processor.write_text(processor.read_text() + "\n# edited\n")
    with pytest.raises(ConfigError, match="changed since the run was made"):
        InferentialTask(**config)


def test_the_python_api_records_the_clone_and_the_model_name(clone: Path) -> None:
    from rulebench.api import run_spec

    spec = run_spec(
        "inferential",
        "openai-api/vllm/org/Llama-2-7b-chat-hf",
        {"tasks": ["theoremQA"], "prompts": "upstream", "data_root": str(clone / "dataset")},
        {},
    )
    config = spec.task_config
    assert config["upstream_model_name"] == "vllm/org/Llama-2-7b-chat-hf"
    source = config["upstream_source"]
    assert isinstance(source, dict) and source["revision"] == f"commit {COMMIT}"
