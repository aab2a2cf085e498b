"""In-domain IRFT data: benchmark prompts from train splits, test questions dropped, CLI."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError, DataError
from rulebench.core.rules import Sample, TaskData
from rulebench.inferential.data import judging_context
from rulebench.inferential.judge import judge
from rulebench.inferential.prompts import render_prompt, template_for
from rulebench.inferential.registry import task_definition
from rulebench.inferential.rule_lists import list_rules
from rulebench.inferential.settings import Setting
from rulebench.inferential.tasks.kinship import generate
from rulebench.train.data import read_examples, read_manifest, write_dataset, write_in_domain
from rulebench.train.examples import DataConfig, TrainingExample
from rulebench.train.in_domain import (
    InDomainConfig,
    SourceCount,
    build_in_domain,
    drop_asked,
    load_source,
    normalise,
)

from tests.command import assert_one_line_error, rulebench

FIXTURES = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"
runner = CliRunner()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A fake release shaped like the real one: law/train_rule.json is `[]`, law train uses
    the test rule ids, every law test input occurs in train and one of them twice (the real
    release: 166 test inputs, 167 train records asking one), once with other line endings."""
    copy = tmp_path / "dataset"
    shutil.copytree(FIXTURES, copy)
    path = copy / "law" / "train_data.json"
    records: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    test = json.loads((copy / "law" / "test_data.json").read_text(encoding="utf-8"))
    again = dict(test[0], input=test[0]["input"].replace("\r\n", "\n") + " ")
    path.write_text(json.dumps([*records, again], ensure_ascii=False), encoding="utf-8")
    return copy


def small(root: Path | None, **changes: Any) -> InDomainConfig:
    """Few kinship samples and a short evaluated stream: the fast configuration."""
    return InDomainConfig(data_root=root, kinship_size=6, eval_size=20).model_copy(update=changes)


def pairs(examples: list[TrainingExample]) -> list[tuple[TrainingExample, TrainingExample]]:
    """(golden, few) examples per sample: they are built in that order."""
    assert [e.quantity for e in examples] == ["golden", "few"] * (len(examples) // 2)
    return list(zip(examples[::2], examples[1::2], strict=True))


def kept_data(config: InDomainConfig, source: str) -> TaskData:
    train, test = load_source(config, source)
    return drop_asked(train, test)[0]


def test_leak_filter_on_a_release_shaped_like_the_real_one(root: Path) -> None:
    config = small(root)
    examples, counts = build_in_domain(config)
    assert counts == {
        "kinship": SourceCount(samples=6, dropped=0, examples=12),
        "clutrr": SourceCount(samples=4, dropped=1, examples=6),
        "ulogic": SourceCount(samples=2, dropped=0, examples=4),
        "law": SourceCount(samples=7, dropped=4, examples=6),
    }
    for source in ("clutrr", "ulogic", "law"):
        _, test = load_source(config, source)
        asked = {normalise(s.question) for s in test.samples}
        assert not any(normalise(e.string) in asked for e in examples if e.task == source)


def test_kinship_train_questions_are_never_evaluated_ones() -> None:
    config = small(None, kinship_seed=0, eval_seed=0, kinship_size=30, eval_size=200)
    examples, counts = build_in_domain(config)
    evaluated = {s.question for s in generate(200, 0).samples}
    assert counts["kinship"].samples == 30 and len(examples) == 60
    assert not {e.string for e in examples} & evaluated
    assert all(e.task == "kinship" for e in examples)


def test_drop_asked_counts_repeats_and_ignores_whitespace() -> None:
    train = generate(4, 3, split="train", n_demos=0)
    first, second = train.samples[0], train.samples[1]
    asked = second.model_copy(update={"question": second.question.replace(" ", "  \n")})
    test = train.model_copy(update={"samples": (asked,)})
    doubled = train.model_copy(update={"samples": (*train.samples, second)})
    kept, dropped = drop_asked(doubled, test)
    assert dropped == 2
    assert kept.samples == (first, *train.samples[2:])


def test_completions_are_the_gold_in_the_template_format_and_judged_right(root: Path) -> None:
    config = small(root)
    examples, _ = build_in_domain(config)
    for source in ("kinship", "clutrr", "ulogic", "law"):
        data = kept_data(config, source)
        by_question = {s.question: s for s in data.samples}
        context = judging_context(source, root) if source != "kinship" else ()
        for example in (e for e in examples if e.task == source):
            sample = by_question[example.string]
            assert example.answer == sample.gold
            assert example.completion == template_for(source).write_answer(sample.gold)
            for mode in ("paper", "robust"):
                verdict = judge(source, example.completion, sample, mode, context)
                assert verdict.correct, (source, mode, example.completion)


def test_prompts_are_the_benchmarks_zero_shot_prompts(root: Path) -> None:
    config = small(root, seed=5, form="fol")
    examples, _ = build_in_domain(config)
    for source in ("kinship", "clutrr", "law"):
        data = kept_data(config, source)
        samples: dict[str, Sample] = {s.question: s for s in data.samples}
        for example in (e for e in examples if e.task == source):
            sample = samples[example.string]
            assert example.quantity is not None
            setting = Setting(quantity=example.quantity, form="fol", seed=5)
            listing = list_rules(sample, setting, data)
            assert example.prompt == render_prompt(sample, setting, listing, (), data)
            assert tuple(rule.id for rule in listing.rules) == example.rule_ids


def test_golden_lists_the_golden_rule_alone_few_adds_the_benchmarks_noise(root: Path) -> None:
    examples, _ = build_in_domain(small(root))
    for golden, few in pairs(examples):
        assert golden.string == few.string and golden.task == few.task
        assert golden.rule_ids == (golden.golden_rule,) and golden.position == 1
        assert "Rule 1:" in golden.prompt or "规则 1:" in golden.prompt
        assert few.task is not None
        expected = task_definition(few.task).rule_counts[0]  # 3; law's few setting lists 4
        assert len(few.rule_ids) == len(set(few.rule_ids)) == expected
        assert few.rule_ids[few.position - 1] == few.golden_rule
    counts = {len(few.rule_ids) for _, few in pairs(examples) if few.task != "law"}
    assert counts == {3}


def test_same_config_same_files_other_seed_other_listings(tmp_path: Path, root: Path) -> None:
    one = write_in_domain(small(root), tmp_path / "a")
    two = write_in_domain(small(root), tmp_path / "b")
    assert one.data_hash == two.data_hash
    train = (tmp_path / "a" / "train.jsonl").read_bytes()
    assert train == (tmp_path / "b" / "train.jsonl").read_bytes()
    three = write_in_domain(small(root, seed=9), tmp_path / "c")
    assert three.data_hash != one.data_hash


def test_size_caps_the_total_with_a_seeded_sample(root: Path) -> None:
    everything, _ = build_in_domain(small(root))
    capped, counts = build_in_domain(small(root, limit=10))
    assert len(capped) == 10 == sum(count.examples for count in counts.values())
    positions = [everything.index(example) for example in capped]
    assert positions == sorted(positions)
    assert build_in_domain(small(root, limit=10))[0] == capped
    assert counts["law"].dropped == 4  # drops are counted before the cap


def test_the_folder_has_a_train_split_and_an_in_domain_manifest(tmp_path: Path, root: Path) -> None:
    from datasets import load_from_disk

    folder = tmp_path / "d"
    manifest = write_in_domain(small(root), folder)
    assert sorted(p.name for p in folder.iterdir()) == ["dataset", "manifest.json", "train.jsonl"]
    assert read_manifest(folder) == manifest
    assert manifest.config is None and manifest.counts == {"train": 28}
    assert manifest.in_domain is not None and manifest.in_domain.sources["law"].dropped == 4
    assert read_examples(folder, "train") == build_in_domain(small(root))[0]
    loaded = load_from_disk(str(folder / "dataset"))
    assert list(loaded) == ["train"] and loaded["train"].num_rows == 28
    assert {"task", "quantity", "prompt", "completion"} <= set(loaded["train"].column_names)


def test_stringgame_manifests_keep_their_format(tmp_path: Path) -> None:
    write_dataset(DataConfig(limit=4, per_group=2), tmp_path / "s")
    content = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert "in_domain" not in content and content["config"]["limit"] == 4
    row = json.loads((tmp_path / "s" / "train.jsonl").read_text().splitlines()[0])
    assert "task" not in row and "quantity" not in row


def test_the_trainer_loads_a_folder_without_test_split(tmp_path: Path, root: Path) -> None:
    from rulebench.train.irft_config import IrftConfig
    from rulebench.train.trainer import load_splits

    write_in_domain(small(root), tmp_path / "d")
    train, evaluation = load_splits(IrftConfig(data=tmp_path / "d", output=tmp_path / "o"))
    assert train.num_rows == 28 and train.column_names == ["prompt", "completion"]
    assert evaluation is None


def test_unknown_or_missing_datasets_are_refused_before_any_work(root: Path) -> None:
    with pytest.raises(ConfigError, match="unknown official dataset 'clutr'"):
        build_in_domain(small(root, tasks=("clutr",)))
    with pytest.raises(DataError, match=r"deer/train_data\.json: no such file"):
        build_in_domain(small(root, tasks=("deer",)))
    with pytest.raises(ConfigError, match="no source"):
        build_in_domain(small(None, kinship_size=0))


@pytest.mark.slow  # builds the whole in-domain set; make test runs it
def test_cli_writes_in_domain_data_and_prints_drops(tmp_path: Path, root: Path) -> None:
    folder = tmp_path / "d"
    args = ["train", "data", "--in-domain", "--data-root", str(root), "-o", str(folder)]
    result = runner.invoke(app, [*args, "--kinship-size", "3"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert any(
        "law" in line and "4 of 7 train samples dropped as test overlap" in line for line in lines
    ), result.stdout
    assert any("kinship" in line and "6 examples" in line for line in lines)
    manifest = read_manifest(folder)
    assert manifest.in_domain is not None
    assert manifest.in_domain.config.data_root == root.resolve()
    assert list(manifest.in_domain.sources) == ["kinship", "clutrr", "ulogic", "law"]
    again = runner.invoke(
        app,
        [*args, "--kinship-size", "0", "--task", "law", "--limit", "3", "--overwrite", "--json"],
    )
    assert again.exit_code == 0, again.output
    shown = json.loads(again.stdout)
    assert shown["counts"] == {"train": 3}
    assert shown["in_domain"]["sources"] == {"law": {"samples": 7, "dropped": 4, "examples": 3}}


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        (["--in-domain", "--per-group", "5"], ConfigError, "StringGame options"),
        (
            ["--data-root", "ROOT"],
            ConfigError,
            "--data-root, --task and --kinship-size need --in-domain",
        ),
        (
            ["--in-domain", "--data-root", "ROOT", "--task", "deer"],
            DataError,
            "deer/train_data.json: no such file (splits present: test)",
        ),
    ],
)
def test_cli_refuses_options_that_do_not_fit(
    tmp_path: Path, root: Path, options: list[str], error: type[Exception], message: str
) -> None:
    options = [str(root) if option == "ROOT" else option for option in options]
    result = runner.invoke(app, ["train", "data", "-o", str(tmp_path / "d"), *options])
    assert isinstance(result.exception, error) and message in str(result.exception)
    assert "\n" not in str(result.exception)
    assert not (tmp_path / "d").exists()


def test_cli_missing_dataset_folder_is_one_line_listing_the_folders(
    tmp_path: Path, root: Path
) -> None:
    shutil.rmtree(root / "ulogic")
    args = ["train", "data", "--in-domain", "--data-root", str(root), "-o", str(tmp_path / "d")]
    result = runner.invoke(app, args)
    assert isinstance(result.exception, DataError), result.output
    message = str(result.exception)
    assert "ulogic: no such folder" in message and "holds: clutrr, clutrr-cf" in message
    assert "\n" not in message and not (tmp_path / "d").exists()


@pytest.mark.subprocess
def test_missing_dataset_folder_is_one_red_line(tmp_path: Path, root: Path) -> None:
    shutil.rmtree(root / "law")
    result = rulebench(
        "train", "data", "--in-domain", "--data-root", str(root), "-o", str(tmp_path / "d")
    )
    assert_one_line_error(result, "law: no such folder", "pass the release's data folder")
    assert "building" not in result.stderr
