"""STaR with a reasoning teacher: its thinking kept as the chain of thought, or dropped.

The teacher is the scripted model with `-M thinking=...` (the same thinking before every reply,
in think tags that the backend splits off), or the mock OpenAI server sending per-example
thinking in `reasoning_content`. Only the reply is judged; the option shapes the written targets.
"""

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.messages import DEFAULT_TAGS
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.engine.store.database import Store
from rulebench.inferential.tasks.stringgame import ordinal, target_text
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig, serve_in_thread
from rulebench.train.data import jsonl_path, read_examples, read_manifest, write_dataset
from rulebench.train.examples import DataConfig, TrainingExample
from rulebench.train.star import StarPlan, StarResult, build_star_data
from rulebench.train.star_manifest import StarSection, TeacherReasoning

runner = CliRunner()
WRONG = 1
"""The example whose reply is always wrong, under thinking that looks right."""


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("star-reasoning") / "data"
    write_dataset(DataConfig(limit=4, per_group=2, seed=5), folder)
    return folder


@pytest.fixture(scope="module")
def examples(source: Path) -> list[TrainingExample]:
    return read_examples(source, "train")


def answer_line(example: TrainingExample, answer: str) -> str:
    return f"Based on the {ordinal(example.position)} rule, the answer is {answer}."


def reply(example: TrainingExample, is_right: bool) -> str:
    answer = example.answer if is_right else example.answer + "1"
    return f"Rule {example.position} holds for {example.string}.\n{answer_line(example, answer)}"


def right_looking_thinking(example: TrainingExample) -> str:
    """Thinking that reasons out the example and states its right answer line."""
    return f"Rule {example.position}'s condition holds. {answer_line(example, example.answer)}"


def write_rules(path: Path, examples: list[TrainingExample]) -> Path:
    rules = [
        {"contains": f"Input: {example.string}\n", "reply": reply(example, i != WRONG)}
        for i, example in enumerate(examples)
    ]
    path.write_text(json.dumps(rules))
    return path


def scripted_plan(
    source: Path, output: Path, model_args: dict[str, str], teacher_reasoning: TeacherReasoning
) -> StarPlan:
    spec = make_spec(
        "irft-star", "scripted/rules", {"data": str(source)}, RunSettings(model_args=model_args)
    )
    return StarPlan(spec=spec, output=output, teacher_reasoning=teacher_reasoning)


def completions(result: StarResult) -> list[str]:
    return [example.completion for example in read_examples(result.folder, "train")]


def star_section(result: StarResult) -> StarSection:
    assert result.manifest.star is not None
    return result.manifest.star


async def test_keep_opens_kept_targets_with_the_thinking_and_drop_leaves_it_out(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    thinking = right_looking_thinking(examples[WRONG])
    args = {"rules": str(write_rules(tmp_path / "rules.json", examples)), "thinking": thinking}
    kept = await build_star_data(scripted_plan(source, tmp_path / "keep", args, "keep"), store)
    fallback = target_text(examples[WRONG].position, examples[WRONG].answer)
    assert completions(kept) == [
        fallback if i == WRONG else f"{thinking}\n\n{reply(example, True)}"
        for i, example in enumerate(examples)
    ]
    assert not any(
        DEFAULT_TAGS.start in text or DEFAULT_TAGS.end in text for text in completions(kept)
    )
    section = star_section(kept)
    assert (section.teacher_reasoning, section.kept, section.kept_with_thinking) == ("keep", 3, 3)
    assert section.fallbacks == 1
    # The same rounds built again with drop: the teacher is not asked, the targets change.
    dropped = await build_star_data(scripted_plan(source, tmp_path / "drop", args, "drop"), store)
    assert [r.how for r in dropped.rounds] == ["reused"] * 3
    assert [r.round for r in dropped.rounds] == [r.round for r in kept.rounds]
    assert completions(dropped) == [
        fallback if i == WRONG else reply(example, True) for i, example in enumerate(examples)
    ]
    section = star_section(dropped)
    assert (section.teacher_reasoning, section.kept, section.kept_with_thinking) == ("drop", 3, 3)
    assert dropped.manifest.data_hash != kept.manifest.data_hash
    assert read_manifest(tmp_path / "drop").star == section


async def test_the_answer_alone_is_judged_right_looking_thinking_or_not(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    thinking = right_looking_thinking(examples[WRONG])
    args = {"rules": str(write_rules(tmp_path / "rules.json", examples)), "thinking": thinking}
    result = await build_star_data(scripted_plan(source, tmp_path / "keep", args, "keep"), store)
    assert [(r.round.items, r.round.kept) for r in result.rounds] == [(4, 3), (1, 0), (1, 0)]
    last = list(store.iter_results(result.rounds[-1].round.run_id))
    [wrong] = last
    assert wrong.metadata["example_id"] == examples[WRONG].id
    assert wrong.reasoning == thinking and wrong.outcome is not None
    assert (wrong.outcome.score, wrong.outcome.answer) == (0.0, examples[WRONG].answer + "1")


async def test_the_same_option_builds_the_same_bytes(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    args = {"rules": str(write_rules(tmp_path / "rules.json", examples)), "thinking": "Hm."}
    first = await build_star_data(scripted_plan(source, tmp_path / "a", args, "keep"), store)
    again = await build_star_data(scripted_plan(source, tmp_path / "b", args, "keep"), store)
    assert again.manifest.data_hash == first.manifest.data_hash
    train = jsonl_path(first.folder, "train").read_bytes()
    assert jsonl_path(again.folder, "train").read_bytes() == train


async def test_a_teacher_without_thinking_gives_the_same_data_either_way(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    args = {"rules": str(write_rules(tmp_path / "rules.json", examples))}
    kept = await build_star_data(scripted_plan(source, tmp_path / "keep", args, "keep"), store)
    dropped = await build_star_data(scripted_plan(source, tmp_path / "drop", args, "drop"), store)
    assert dropped.manifest.data_hash == kept.manifest.data_hash
    train = jsonl_path(kept.folder, "train").read_bytes()
    assert jsonl_path(dropped.folder, "train").read_bytes() == train
    assert star_section(kept).kept_with_thinking == star_section(dropped).kept_with_thinking == 0
    assert completions(kept)[0] == reply(examples[0], True)


class ThinkingTeacher:
    """Replies right to every example, each with thinking of its own in a think block."""

    def __init__(self, examples: list[TrainingExample]) -> None:
        self.by_string = {example.string: example for example in examples}

    def __call__(self, body: dict[str, Any]) -> str:
        found = re.search(r"Input: (\S+)", body["messages"][-1]["content"])
        assert found is not None
        example = self.by_string[found.group(1)]
        return f"<think>Looking at {example.string}.</think>{reply(example, True)}"


async def test_thinking_sent_in_the_api_field_is_kept_per_example(
    source: Path, examples: list[TrainingExample], store: Store, tmp_path: Path
) -> None:
    config = MockServerConfig(thinking="reasoning_content")
    async with MockOpenAIServer(config, reply_fn=ThinkingTeacher(examples)) as server:
        spec = make_spec(
            "irft-star",
            "openai-api/mock/thinker",
            {"data": str(source)},
            RunSettings(base_url=server.url),
        )
        plan = StarPlan(spec=spec, output=tmp_path / "keep", teacher_reasoning="keep")
        result = await build_star_data(plan, store)
    assert completions(result) == [
        f"Looking at {example.string}.\n\n{reply(example, True)}" for example in examples
    ]


def test_old_manifests_read_as_dropped_thinking() -> None:
    section = StarSection.model_validate(
        {
            "teacher": "scripted/echo",
            "source": "/data",
            "source_hash": "0" * 64,
            "max_attempts": 3,
            "max_tokens": 400,
            "temperature": 0.7,
            "rounds": [],
            "kept": 0,
            "fallbacks": 4,
        }
    )
    assert (section.teacher_reasoning, section.kept_with_thinking) == ("drop", 0)


def test_the_command_takes_and_reports_the_option(
    source: Path, examples: list[TrainingExample], tmp_path: Path
) -> None:
    rules = write_rules(tmp_path / "rules.json", examples)
    base = ["train", "star", "--teacher", "scripted/rules", "--data", str(source)]
    base += ["-M", f"rules={rules}", "-M", "thinking=Checking the rules."]
    base += ["--store", str(tmp_path / "s.sqlite"), "--attempts", "1"]
    kept = runner.invoke(app, [*base, "-o", str(tmp_path / "keep"), "--teacher-reasoning", "keep"])
    assert kept.exit_code == 0, kept.output
    assert "teacher_reasoning=keep" in kept.stderr
    assert "kept: 3 targets open with it as the chain of thought" in kept.stdout
    dropped = runner.invoke(app, [*base, "-o", str(tmp_path / "drop"), "--json"])
    assert dropped.exit_code == 0, dropped.output
    shown = json.loads(dropped.stdout)
    assert [r["how"] for r in shown["rounds"]] == ["reused"]
    assert (shown["star"]["teacher_reasoning"], shown["star"]["kept_with_thinking"]) == ("drop", 3)
    bad = runner.invoke(app, [*base, "-o", str(tmp_path / "bad"), "--teacher-reasoning", "maybe"])
    assert bad.exit_code == 2 and "maybe" in bad.output
    assert not (tmp_path / "bad").exists()


class MagistralTeacher(ThinkingTeacher):
    """As ThinkingTeacher, with the thinking between Magistral's tags in the content."""

    def __call__(self, body: dict[str, Any]) -> str:
        text = super().__call__(body)
        return text.replace("<think>", "[THINK]").replace("</think>", "[/THINK]")


def test_the_command_splits_a_teachers_own_tags(
    source: Path, examples: list[TrainingExample], tmp_path: Path
) -> None:
    with serve_in_thread(reply_fn=MagistralTeacher(examples)) as server:
        args = ["train", "star", "--teacher", "openai-api/mock/magistral", "--data", str(source)]
        args += ["-o", str(tmp_path / "keep"), "--base-url", server.url, "--attempts", "1"]
        args += ["--store", str(tmp_path / "s.sqlite"), "--teacher-reasoning", "keep"]
        made = runner.invoke(app, [*args, "--reasoning-tags", "[THINK] [/THINK]"])
    assert made.exit_code == 0, made.output
    assert [example.completion for example in read_examples(tmp_path / "keep", "train")] == [
        f"Looking at {example.string}.\n\n{reply(example, True)}" for example in examples
    ]
