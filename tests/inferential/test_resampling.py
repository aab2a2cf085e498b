"""Re-asking an item while its reply lacks upstream's answer line (`--resample upstream`).

A model that answers without the line for its first few requests of a prompt, then with it,
runs the fixture clone's prompts end to end through the runner and a real store.
"""

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.api import run_spec
from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.core.items import ItemResult
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.inferential.resampling import (
    MAX_ATTEMPTS,
    RESAMPLE_TEMPERATURE,
    has_answer_line,
)
from rulebench.inferential.task import InferentialConfig, InferentialTask
from rulebench.models.base import ModelInfo

from tests.inferential.upstream.clone_fixture import OFFICIAL, make_clone

LINELESS = "The rule applies here, so it holds"
ANSWERED = {"ulogic": "Answer: True.", "theoremQA": "Answer: d.", "deer": "Answer: True."}


class LateAnswerer:
    """Answers a prompt without the answer line for its first `misses` requests, then with it."""

    def __init__(self, task: str, misses: int) -> None:
        self.answer = ANSWERED[task]
        self.misses = misses
        self.sent: list[GenerateConfig] = []
        self._asked: Counter[str] = Counter()
        self.info = ModelInfo(provider="test", name="late", identity=f"test/late@{misses}")

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        self.sent.append(config)
        prompt = messages[-1].content
        self._asked[prompt] += 1
        text = LINELESS if self._asked[prompt] <= self.misses else self.answer
        return Completion(text=text)

    async def aclose(self) -> None:
        pass


def _spec(data_root: Path, task: str, **config: JsonValue) -> RunSpec:
    fields: dict[str, JsonValue] = {
        "tasks": [task],
        "data_root": str(data_root),
        "grid": {"quantities": ["golden"]},
    }
    return run_spec("inferential", "scripted/echo", {**fields, **config}, {"temperature": 0.2})


async def _run(store: Path, spec: RunSpec, model: LateAnswerer) -> list[ItemResult]:
    task = InferentialTask(**spec.task_config)
    with Store(store) as db:
        report = await Runner(db).run(task, model, spec)
        return list(db.iter_results(report.run.id))


def _seeds(result: ItemResult) -> list[int]:
    """The sampling seed of each of the item's attempts, as its outcome records them."""
    assert result.outcome is not None
    seeds = result.outcome.details["ask_seeds"]
    assert isinstance(seeds, list)
    return [seed for seed in seeds if isinstance(seed, int)]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return make_clone(tmp_path) / "dataset"


@pytest.mark.parametrize("task", ["ulogic", "theoremQA"])
async def test_an_item_is_asked_again_until_its_reply_has_the_answer_line(
    tmp_path: Path, clone: Path, task: str
) -> None:
    spec = _spec(clone, task, prompts="upstream")
    model = LateAnswerer(task, misses=2)
    results = await _run(tmp_path / "runs.db", spec, model)
    items = InferentialTask(**spec.task_config).items()
    # attempts of one item, never new samples: one result per item, under the item's id
    assert sorted(r.item_id for r in results) == sorted(item.id for item in items)
    assert len(model.sent) == 3 * len(items)
    for result in results:
        assert result.outcome is not None
        details = result.outcome.details
        assert result.reply == ANSWERED[task]  # the scored reply is the last, matched one
        assert result.calls == details["asks"] == 3
        assert details["ask_temperatures"] == [0.2, RESAMPLE_TEMPERATURE, RESAMPLE_TEMPERATURE]
        assert details["has_answer_line"] is True
        seeds = details["ask_seeds"]
        assert isinstance(seeds, list) and len(set(seeds)) == 3
    retries = [config for config in model.sent if config.temperature == RESAMPLE_TEMPERATURE]
    assert retries and all(config.top_p == 1.0 for config in retries)
    recorded = {seed for result in results for seed in _seeds(result)}
    assert recorded == {config.seed for config in model.sent}


async def test_at_most_five_requests_and_the_last_reply_is_scored(
    tmp_path: Path, clone: Path
) -> None:
    spec = _spec(clone, "ulogic", prompts="upstream")
    results = await _run(tmp_path / "runs.db", spec, LateAnswerer("ulogic", misses=9))
    for result in results:
        assert result.outcome is not None
        assert result.calls == result.outcome.details["asks"] == MAX_ATTEMPTS
        assert result.reply == LINELESS
        assert result.outcome.details["has_answer_line"] is False


async def test_a_dataset_upstream_does_not_re_ask_gets_one_request(
    tmp_path: Path, clone: Path
) -> None:
    spec = _spec(clone, "deer", prompts="upstream")
    assert spec.task_config["resample"] == "upstream"
    model = LateAnswerer("deer", misses=2)
    results = await _run(tmp_path / "runs.db", spec, model)
    assert results and len(model.sent) == len(results)
    for result in results:
        assert result.outcome is not None and "asks" not in result.outcome.details
        assert result.reply == LINELESS


async def test_rulebench_prompts_ask_once_unless_told(tmp_path: Path) -> None:
    spec = _spec(OFFICIAL, "ulogic")
    assert spec.task_config["resample"] == "off"  # the stored spec says what the run did
    model = LateAnswerer("ulogic", misses=2)
    results = await _run(tmp_path / "off.db", spec, model)
    assert len(model.sent) == len(results)
    asked = _spec(OFFICIAL, "ulogic", resample="upstream")
    assert asked.task_config["resample"] == "upstream"
    results = await _run(tmp_path / "on.db", asked, LateAnswerer("ulogic", misses=2))
    assert all(r.calls == 3 for r in results)


def test_upstream_prompts_store_the_re_asking_they_do(clone: Path) -> None:
    assert _spec(clone, "ulogic", prompts="upstream").task_config["resample"] == "upstream"
    told = _spec(clone, "ulogic", prompts="upstream", resample="off")
    assert told.task_config["resample"] == "off"


async def test_a_run_stored_before_the_option_resumes_with_one_request(
    tmp_path: Path, clone: Path
) -> None:
    stored = _spec(clone, "ulogic", prompts="upstream").task_config
    old = {key: value for key, value in stored.items() if key != "resample"}
    assert InferentialConfig.model_validate(old).resample is None
    spec = RunSpec(task="inferential", model="test/late", task_config=old)
    model = LateAnswerer("ulogic", misses=2)
    results = await _run(tmp_path / "runs.db", spec, model)
    assert len(model.sent) == len(results)


async def test_a_rerun_takes_every_attempt_from_the_cache(tmp_path: Path, clone: Path) -> None:
    spec = _spec(clone, "theoremQA", prompts="upstream")
    store = tmp_path / "runs.db"
    first = await _run(store, spec, LateAnswerer("theoremQA", misses=3))
    again = LateAnswerer("theoremQA", misses=3)
    second = await _run(store, spec, again)
    assert again.sent == []  # each attempt had its own key: none was asked again
    assert second and all(r.cache_hits == r.calls == 4 for r in second)
    by_id = {r.item_id: r for r in first}
    for result in second:
        assert result.reply == by_id[result.item_id].reply == ANSWERED["theoremQA"]
        assert result.outcome == by_id[result.item_id].outcome


async def test_each_repeat_retries_with_seeds_of_its_own(tmp_path: Path, clone: Path) -> None:
    spec = _spec(clone, "ulogic", prompts="upstream", repeats=2)
    model = LateAnswerer("ulogic", misses=9)
    results = await _run(tmp_path / "runs.db", spec, model)
    assert {r.item_id for r in results} == {
        i.id for i in InferentialTask(**spec.task_config).items()
    }
    by_repeat = {(r.metadata["repeat"], tuple(_seeds(r))) for r in results}
    assert {repeat for repeat, _ in by_repeat} == {0, 1}
    # the run's seeds are shared by its items, as its sampling seed is; a repeat's are its own
    assert len(by_repeat) == 2
    for _, seeds in by_repeat:
        assert len(set(seeds)) == MAX_ATTEMPTS
    repeats = [set(seeds) for _, seeds in by_repeat]
    assert not repeats[0] & repeats[1]
    assert repeats[0] | repeats[1] == {config.seed for config in model.sent}


def test_log_likelihood_scoring_refuses_re_asking() -> None:
    with pytest.raises(ConfigError, match="--resample upstream"):
        InferentialConfig(tasks=("kinship",), scoring="loglik", resample="upstream")


@pytest.mark.parametrize(
    ("task", "reply", "found"),
    [
        ("ulogic", "think_steps: ...\nAnswer: True.", True),
        ("ulogic", "Answer: True", False),  # upstream's pattern needs the full stop
        ("ulogic", "answer: True.", False),
        ("ulogic-cf", "AppliedRuleId: 5. Answer: False.", True),
        ("theoremQA", "Answer: d.", True),
        ("theoremQA", "Answer: e.", False),  # theoremQA's pattern takes a letter a-d
    ],
)
def test_the_answer_line_is_upstream_pattern(task: str, reply: str, found: bool) -> None:
    assert has_answer_line(task, reply) is found


@pytest.mark.parametrize(("given", "calls"), [([], MAX_ATTEMPTS), (["--resample", "off"], 1)])
def test_the_command_line_option_reaches_the_stored_run(
    tmp_path: Path, clone: Path, given: list[str], calls: int
) -> None:
    store = str(tmp_path / "runs.db")
    args = ["run", "inferential", "-t", "ulogic", "-q", "golden", "--prompts", "upstream"]
    args += ["--data-root", str(clone), "-m", "scripted/fixed", "-M", f"reply={LINELESS}"]
    result = CliRunner().invoke(app, [*args, "--store", store, *given])
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        run = db.list_runs()[0]
        config = db.get_run(run.id).config["task_config"]
        results = list(db.iter_results(run.id))
    assert isinstance(config, dict) and config["resample"] == ("off" if given else "upstream")
    assert results and all(r.calls == calls for r in results)


def test_the_run_line_and_the_report_header_name_the_re_asking(tmp_path: Path, clone: Path) -> None:
    store = str(tmp_path / "runs.db")
    args = ["run", "inferential", "-t", "ulogic", "-t", "deer", "-q", "golden"]
    args += ["--prompts", "upstream", "--data-root", str(clone), "-m", "scripted/fixed"]
    result = CliRunner().invoke(app, [*args, "-M", f"reply={LINELESS}", "--store", store])
    assert result.exit_code == 0, result.output
    run_line = result.output.splitlines()[0]
    assert "re-asked while a reply lacks upstream's answer line: ulogic (" in run_line
    assert f"up to {MAX_ATTEMPTS} requests" in run_line and "deer" not in run_line.split(";")[-1]
    with Store(store) as db:
        run_id = db.list_runs()[0].id
    shown = CliRunner().invoke(app, ["runs", "show", run_id, "--store", store])
    report = CliRunner().invoke(app, ["report", run_id, "--store", store, "--json"])
    for output in (shown.output, report.output):
        assert "re-asked while a reply lacks upstream" in " ".join(output.split())


def test_one_request_per_item_names_no_re_asking(tmp_path: Path, clone: Path) -> None:
    args = ["run", "inferential", "-t", "ulogic", "-q", "golden", "--prompts", "upstream"]
    args += ["--data-root", str(clone), "-m", "scripted/echo", "--resample", "off"]
    result = CliRunner().invoke(app, [*args, "--store", str(tmp_path / "runs.db")])
    assert result.exit_code == 0, result.output
    assert "re-asked" not in result.output
