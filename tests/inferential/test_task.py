"""The inferential benchmark through the real runner and store, with a model that knows answers."""

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.items import Item
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.inferential.analysis import error_split, to_records
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialTask
from rulebench.models.base import ModelInfo

Answer = Callable[[Item], str]


class Oracle:
    """Answers each prompt with what `answer(item)` says (a test double for a model)."""

    def __init__(self, items: Sequence[Item], answer: Answer) -> None:
        self.replies = {item.messages[-1].content: answer(item) for item in items}
        self.info = ModelInfo(provider="test", name="oracle", identity="test/oracle")

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        return Completion(text=self.replies[messages[-1].content])

    async def aclose(self) -> None:
        pass


def task(**config: object) -> InferentialTask:
    return InferentialTask(
        **({"tasks": ["kinship", "stringgame"], "per_group": 12, "seed": 1} | config)
    )


def test_items_cover_tasks_x_settings_x_samples_with_stable_unique_ids() -> None:
    grid = Grid(quantities=("golden", "few"), forms=("nl", "fol"), counterfactual=(False, True))
    items = task(grid=grid.model_dump()).items()
    # stringgame has no counterfactual form: it takes only the factual settings of the grid.
    assert len(items) == (8 + 4) * 12
    assert not any(
        i.metadata["counterfactual"] for i in items if i.metadata["task"] == "stringgame"
    )
    assert len({i.id for i in items}) == len(items)
    assert [i.id for i in task(grid=grid.model_dump()).items()] == [i.id for i in items]
    kinship_cf = next(
        i for i in items if i.metadata["task"] == "kinship" and i.metadata["counterfactual"]
    )
    assert kinship_cf.target != next(
        i.target
        for i in items
        if i.metadata["sample_id"] == kinship_cf.metadata["sample_id"]
        and not i.metadata["counterfactual"]
    )
    for item in items[:20]:
        golden = item.metadata["golden_index"]
        assert isinstance(golden, int) and f"Rule {golden}:" in item.messages[0].content


async def test_right_answers_score_100_in_both_modes(tmp_path: Path) -> None:
    inferential = task(grid=Grid(quantities=("few", "all")).model_dump())
    items = inferential.items()

    def right(item: Item) -> str:
        if item.metadata["task"] == "stringgame":
            return f"Based on rule {item.metadata['golden_index']}, the answer is {item.target}."
        return f"Answer: {item.target}"

    with Store(tmp_path / "s.sqlite") as store:
        spec = RunSpec(task="inferential", model="test/oracle", task_config=inferential.config())
        report = await Runner(store).run(inferential, Oracle(items, right), spec)
        results = list(store.iter_results(report.run.id))
    assert len(results) == len(items)
    for mode in ("paper", "robust"):
        records = to_records(results, mode)
        assert all(r.correct for r in records), mode


async def test_citing_the_golden_rule_with_a_wrong_answer_is_an_execution_error(
    tmp_path: Path,
) -> None:
    inferential = task(
        tasks=["kinship"], grid=Grid(quantities=("few",), cite_rule=True).model_dump()
    )
    items = inferential.items()
    assert "Applied rule: N" in items[0].messages[0].content

    def wrong_but_cites_golden(item: Item) -> str:
        wrong = "grandson" if item.target != "grandson" else "niece"
        return f"Applied rule: {item.metadata['golden_index']}\nAnswer: {wrong}"

    with Store(tmp_path / "s.sqlite") as store:
        spec = RunSpec(task="inferential", model="test/oracle", task_config=inferential.config())
        report = await Runner(store).run(inferential, Oracle(items, wrong_but_cites_golden), spec)
        records = to_records(store.iter_results(report.run.id), "robust")
    split = error_split(records)["kinship"]
    assert split["execution"].value == 1.0 and split["execution"].n == 12


def test_unknown_task_and_missing_data_root_are_config_errors() -> None:
    from rulebench.core.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown inferential task 'kinshp'"):
        task(tasks=["kinshp"]).items()
    with pytest.raises(ConfigError, match="--data-root"):
        task(tasks=["clutrr"]).items()


def test_official_data_runs_from_the_cli_and_reports(tmp_path: Path) -> None:
    fixtures = Path(__file__).parent / "tasks" / "fixtures" / "official"
    store = str(tmp_path / "s.sqlite")
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "run",
            "inferential",
            "-t",
            "deer",
            "-t",
            "clutrr",
            "--data-root",
            str(fixtures),
            "-q",
            "golden",
            "-q",
            "few",
            "--form",
            "nl",
            "--form",
            "fol",
            "-m",
            "scripted/fixed",
            "-M",
            "reply=The answer is B.",
            "--store",
            store,
        ],
    )
    assert result.exit_code == 0, result.output
    assert "deer few/fol/direct" in result.output
    with Store(store) as db:
        run_id = db.list_runs()[0].id
    report = runner.invoke(
        app, ["report", "inferential", run_id, "-o", str(tmp_path / "report"), "--store", store]
    )
    assert report.exit_code == 0, report.output
    text = (tmp_path / "report" / "report.md").read_text()
    assert "Table 1 shape" in text and "deer All" in text
    assert (tmp_path / "report" / "dimensions.svg").exists()


def test_item_metadata_is_typed_and_an_unreadable_record_names_the_item() -> None:
    from rulebench.core.errors import StoreError
    from rulebench.inferential.item_meta import ItemMeta
    from rulebench.inferential.task import InferentialTask

    items = InferentialTask(tasks=["kinship"], per_group=2).items()
    meta = ItemMeta.read(items[0].metadata, items[0].id)
    assert meta.task == "kinship" and meta.quantity == "few" and len(meta.listed_rules) == 3
    assert meta.golden_index is not None and 1 <= meta.golden_index <= 3
    assert "hops" in meta.facts()
    broken = {**items[0].metadata, "cot": "sometimes"}
    with pytest.raises(StoreError, match=rf"item {items[0].id}: metadata field 'cot'"):
        ItemMeta.read(broken, items[0].id)
