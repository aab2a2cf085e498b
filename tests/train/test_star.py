"""STaR data (`rulebench train star`): rounds as stored runs, kept replies, fallbacks, reuse.

The teacher is an OpenAI-compatible mock server whose reply depends on the sampling seed (so an
example can be solved on the 2nd or 3rd attempt only), or the scripted model where attempts
need not differ.
"""

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError, DataError, ModelError
from rulebench.core.items import Item
from rulebench.core.messages import GenerateConfig, Message
from rulebench.engine.catalog import build_task, default_max_tokens
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.engine.runner import RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.task import with_repeat_seed
from rulebench.inferential.tasks.stringgame import ordinal, target_text
from rulebench.testing.mock_server import MockOpenAIServer, serve_in_thread
from rulebench.train.data import DATASET_FOLDER, jsonl_path, read_examples, read_manifest
from rulebench.train.examples import DataConfig, TrainingExample
from rulebench.train.irft_config import IrftConfig
from rulebench.train.star import StarPlan, build_star_data
from rulebench.train.star_task import COT_INSTRUCTION, StarConfig, judge_reply
from rulebench.train.trainer import load_splits

runner = CliRunner()
TEACHER = "openai-api/mock/teacher"
SOLVED_AT = {0: 1, 1: 1, 2: 2, 3: 3}
"""Example index -> the first attempt whose reply is right; examples 4 and 5 never are."""
ATTEMPT_OF_SEED = {0: 1} | {
    with_repeat_seed(GenerateConfig(seed=0), attempt - 1).seed: attempt for attempt in (2, 3)
}
"""The sampling seed each attempt sends (run seed 0, then one derived per repeat)."""


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rulebench.train.data import write_dataset

    folder = tmp_path_factory.mktemp("star-source") / "data"
    write_dataset(DataConfig(limit=6, per_group=3, seed=11), folder)
    return folder


@pytest.fixture(scope="module")
def examples(source: Path) -> list[TrainingExample]:
    return read_examples(source, "train")


def reasoning(example: TrainingExample, is_right: bool) -> str:
    answer = example.answer if is_right else example.answer + "1"
    return (
        f"Checking each rule against {example.string}: rule {example.position} holds, and "
        f"its output is {answer}.\nBased on the {ordinal(example.position)} rule, the answer "
        f"is {answer}."
    )


class Teacher:
    """Replies to the example named in the prompt, right from its SOLVED_AT attempt on."""

    def __init__(self, examples: list[TrainingExample]) -> None:
        self.index = {example.string: i for i, example in enumerate(examples)}
        self.examples = examples

    def __call__(self, body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        found = re.search(r"Input: (\S+)", prompt)
        assert found is not None and prompt.endswith(COT_INSTRUCTION)
        index = self.index[found.group(1)]
        attempt = ATTEMPT_OF_SEED[body["seed"]]
        is_right = index in SOLVED_AT and attempt >= SOLVED_AT[index]
        return reasoning(self.examples[index], is_right)


def star_plan(source: Path, output: Path, teacher: str = TEACHER, **settings: Any) -> StarPlan:
    spec = make_spec("irft-star", teacher, {"data": str(source)}, RunSettings(**settings))
    return StarPlan(spec=spec, output=output)


def train_completions(folder: Path) -> list[str]:
    return [example.completion for example in read_examples(folder, "train")]


async def test_right_replies_are_kept_per_round_and_the_rest_fall_back(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    async with MockOpenAIServer(reply_fn=Teacher(examples)) as server:
        plan = star_plan(source, tmp_path / "star", base_url=server.url)
        result = await build_star_data(plan, store)
    rounds = [(r.round.attempt, r.round.items, r.round.kept, r.how) for r in result.rounds]
    assert rounds == [(1, 6, 2, "new"), (2, 4, 1, "new"), (3, 3, 1, "new")]
    assert len(server.requests) == 6 + 4 + 3
    star = result.manifest.star
    assert star is not None and (star.kept, star.fallbacks) == (4, 2)
    assert star.teacher == TEACHER and star.source_hash == read_manifest(source).data_hash
    assert [r.run_id for r in star.rounds] == [r.round.run_id for r in result.rounds]
    assert all(r.kept_without_golden_rule == 0 for r in star.rounds)
    assert (star.max_tokens, star.temperature) == (400, 0.7)  # the task's defaults
    expected = [
        reasoning(example, True)
        if i in SOLVED_AT
        else target_text(example.position, example.answer)
        for i, example in enumerate(examples)
    ]
    assert train_completions(plan.output) == expected
    # The training prompt is the example's own: the reasoning instruction was the teacher's.
    assert [e.prompt for e in read_examples(plan.output, "train")] == [e.prompt for e in examples]
    for split in ("test", "heldout"):
        assert jsonl_path(plan.output, split).read_bytes() == jsonl_path(source, split).read_bytes()


async def test_starting_again_reuses_the_stored_rounds_without_asking(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    async with MockOpenAIServer(reply_fn=Teacher(examples)) as server:
        first = await build_star_data(star_plan(source, tmp_path / "a", base_url=server.url), store)
        asked = len(server.requests)
        again = star_plan(source, tmp_path / "b", base_url=server.url, concurrency=2)
        second = await build_star_data(again, store)
    assert len(server.requests) == asked
    assert [r.how for r in second.rounds] == ["reused"] * 3
    assert [r.round for r in second.rounds] == [r.round for r in first.rounds]
    assert second.manifest.data_hash == first.manifest.data_hash


async def test_a_new_run_of_the_same_requests_is_served_by_the_cache(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    async with MockOpenAIServer(reply_fn=Teacher(examples)) as server:
        await build_star_data(star_plan(source, tmp_path / "a", base_url=server.url), store)
        asked = len(server.requests)
        # A limit of all six examples is another round-1 spec, with the very same requests.
        other = star_plan(source, tmp_path / "b", base_url=server.url, limit=6)
        result = await build_star_data(other, store)
    assert len(server.requests) == asked
    first = result.rounds[0]
    assert (first.how, first.ran, first.cache_hits) == ("new", 6, 6)
    assert [r.how for r in result.rounds[1:]] == ["reused", "reused"]


async def test_a_limit_builds_from_the_first_examples_only(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    async with MockOpenAIServer(reply_fn=Teacher(examples)) as server:
        plan = star_plan(source, tmp_path / "star", base_url=server.url, limit=3)
        result = await build_star_data(plan, store)
    assert [(r.round.items, r.round.kept) for r in result.rounds] == [(3, 2), (1, 1)]
    assert result.manifest.counts == {"train": 3, "test": 3, "heldout": 3}
    assert [e.id for e in read_examples(plan.output, "train")] == [e.id for e in examples[:3]]


def write_rules(path: Path, examples: list[TrainingExample], failing: str | None) -> Path:
    rules: list[dict[str, Any]] = [
        {"contains": f"Input: {example.string}\n", "reply": reasoning(example, True)}
        for example in examples
    ]
    if failing is not None:
        rules.insert(0, {"contains": f"Input: {failing}\n", "error": "boom", "transient": False})
    path.write_text(json.dumps(rules))
    return path


async def test_a_round_that_did_not_finish_is_resumed_by_the_same_build(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    rules = write_rules(tmp_path / "rules.json", examples, failing=examples[2].string)
    plan = star_plan(source, tmp_path / "star", "scripted/rules", model_args={"rules": str(rules)})
    with pytest.raises(ModelError, match=r"attempt 1: run .* did not finish.*start the same build"):
        await build_star_data(plan, store)
    [stopped] = store.list_runs()
    assert stopped.status == "failed"
    write_rules(rules, examples, failing=None)  # the teacher works again
    result = await build_star_data(plan, store)
    [only] = result.rounds
    assert (only.how, only.ran, only.round.run_id) == ("resumed", 1, stopped.id)
    assert (only.round.items, only.round.kept) == (6, 6)
    assert train_completions(plan.output) == [reasoning(example, True) for example in examples]


async def test_an_unknown_teacher_is_refused_before_anything_is_written(
    source: Path, store: Store, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="unknown model provider 'nosuch'"):
        star_plan(source, tmp_path / "star", "nosuch/model")
    spec = RunSpec(task="irft-star", task_config={"data": str(source)}, model="nosuch/model")
    with pytest.raises(ConfigError, match="unknown model provider 'nosuch'"):
        await build_star_data(StarPlan(spec=spec, output=tmp_path / "star"), store)
    assert not (tmp_path / "star").exists() and store.list_runs() == []


async def test_a_folder_that_is_no_data_folder_is_refused(store: Store, tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    plan = star_plan(tmp_path / "notes", tmp_path / "star", "scripted/echo")
    with pytest.raises(DataError, match=r"no manifest\.json: not an IRFT data folder"):
        await build_star_data(plan, store)
    assert not (tmp_path / "star").exists() and store.list_runs() == []


async def test_in_domain_data_or_a_bad_round_config_is_refused(
    source: Path, store: Store, tmp_path: Path
) -> None:
    shutil.copytree(source, tmp_path / "in-domain")
    manifest = json.loads((tmp_path / "in-domain" / "manifest.json").read_text())
    del manifest["config"]  # what an in-domain folder's manifest lacks
    (tmp_path / "in-domain" / "manifest.json").write_text(json.dumps(manifest))
    plan = star_plan(tmp_path / "in-domain", tmp_path / "star", "scripted/echo")
    with pytest.raises(DataError, match="not StringGame data"):
        await build_star_data(plan, store)
    spec = RunSpec(
        task="irft-star", task_config={"data": str(source), "attempt": 9}, model="scripted/echo"
    )
    with pytest.raises(ConfigError, match="task irft-star: invalid config: attempt: Input should"):
        await build_star_data(StarPlan(spec=spec, output=tmp_path / "star"), store)
    assert not (tmp_path / "star").exists()


async def test_an_output_holding_the_data_is_refused(source: Path, store: Store) -> None:
    with pytest.raises(ConfigError, match="holds the data folder"):
        await build_star_data(star_plan(source, source.parent, "scripted/echo"), store)
    assert read_manifest(source).star is None


def test_a_plan_is_for_the_star_task_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"spec\.task must be 'irft-star'"):
        StarPlan(spec=RunSpec(task="smoke", model="scripted/echo"), output=tmp_path)


def test_the_task_is_registered_with_sampling_defaults(source: Path) -> None:
    config = {"data": str(source)}
    assert default_max_tokens("irft-star", config) == 400
    spec = make_spec("irft-star", "scripted/echo", config, RunSettings())
    assert spec.generate.temperature == 0.7
    # `rulebench run --resume` rebuilds a round from its stored config, as for any task.
    stored: dict[str, JsonValue] = {**spec.task_config, "attempt": 2, "example_ids": ["nope"]}
    with pytest.raises(DataError, match=r"1 example ids of this round are not in train\.jsonl"):
        build_task("irft-star", stored).items()
    with pytest.raises(DataError, match="the data changed since this round was planned"):
        build_task("irft-star", {**spec.task_config, "data_hash": "0" * 64})


def star_item(example: TrainingExample) -> Item:
    return Item(
        id="x",
        messages=(Message(role="user", content="q"),),
        target=example.answer,
        metadata={"position": example.position},
    )


def test_only_a_whole_reply_with_an_answer_line_is_right(examples: list[TrainingExample]) -> None:
    example = examples[0]
    item = star_item(example)
    whole = judge_reply(reasoning(example, True), item, is_cut=False)
    assert (whole.score, whole.answer, whole.reason) == (1.0, example.answer, None)
    assert whole.details["names_golden_rule"] is True
    cut = judge_reply(reasoning(example, True), item, is_cut=True)
    assert (cut.score, cut.reason) == (0.0, "the reply was cut at the token limit")
    # The right number last, but never stated as the answer: the robust reading would count it.
    bare = judge_reply(f"Rule {example.position} gives {example.answer}", item, is_cut=False)
    assert (bare.answer, bare.score) == (example.answer, 0.0)
    assert bare.reason == 'the reply has no "the answer is X" line'
    other = reasoning(example, True).replace(ordinal(example.position), "tenth")
    named = judge_reply(other, item, is_cut=False)
    assert (named.score, named.details["named_rule"], named.details["names_golden_rule"]) == (
        1.0,
        10,
        False,
    )


@given(reply=st.text(max_size=300))
def test_judging_never_raises(reply: str) -> None:
    item = Item(id="x", messages=(), target="12", metadata={"position": 2})
    outcome = judge_reply(reply, item, is_cut=False)
    assert outcome.score in (0.0, 1.0)


def test_the_command_builds_then_reuses_and_the_folder_trains(
    source: Path, examples: list[TrainingExample], tmp_path: Path
) -> None:
    output, store = tmp_path / "star", tmp_path / "s.sqlite"
    with serve_in_thread(reply_fn=Teacher(examples)) as server:
        args = ["train", "star", "--teacher", TEACHER, "--data", str(source), "-o", str(output)]
        args += ["--base-url", server.url, "--store", str(store), "--attempts", "2"]
        made = runner.invoke(app, args)
        assert made.exit_code == 0, made.output
        asked = len(server.requests)
        again = runner.invoke(app, [*args, "--overwrite", "--json"])
        assert again.exit_code == 0, again.output
        assert len(server.requests) == asked == 6 + 4
    assert "attempt 1: 2 of 6 right" in made.stdout and "attempt 2: 1 of 4 right" in made.stdout
    assert "3 with the teacher's reasoning, 3 with the plain target" in made.stdout
    with Store(store, readonly=True) as db:  # the task config's concurrency, as run's
        assert {run.config["concurrency"] for run in db.list_runs()} == {
            StarConfig.default_concurrency
        }
    shown = json.loads(again.stdout)
    assert [r["how"] for r in shown["rounds"]] == ["reused", "reused"]
    assert (shown["star"]["kept"], shown["star"]["fallbacks"]) == (3, 3)
    manifest = read_manifest(output)
    assert manifest.star is not None and manifest.star.max_attempts == 2
    train, evaluation = load_splits(IrftConfig(data=output, output=tmp_path / "tuned"))
    assert train.num_rows == 6 and evaluation is not None and evaluation.num_rows == 3
    assert train[2]["completion"] == [
        {"role": "assistant", "content": reasoning(examples[2], True)}
    ]
    assert (output / DATASET_FOLDER).is_dir()


def test_the_command_names_a_bad_teacher_or_folder(source: Path, tmp_path: Path) -> None:
    # In-process the error reaches the runner; `rulebench` prints it as one red line.
    base = ["train", "star", "-o", str(tmp_path / "star"), "--store", str(tmp_path / "s.sqlite")]
    bad_teacher = runner.invoke(app, [*base, "--teacher", "nosuch/x", "--data", str(source)])
    assert isinstance(bad_teacher.exception, ConfigError)
    assert "unknown model provider 'nosuch'" in str(bad_teacher.exception)
    no_folder = runner.invoke(app, [*base, "--teacher", "scripted/echo", "--data", str(tmp_path)])
    assert isinstance(no_folder.exception, DataError)
    assert "not an IRFT data folder" in str(no_folder.exception)
    assert not (tmp_path / "star").exists()
