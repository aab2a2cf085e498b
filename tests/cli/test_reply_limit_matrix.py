"""The same cases get the same reply limit, however they were named (issue 35).

A suite plays at its official size, max_tokens 512, when the run plays every case it holds, and
at the quick size, 128, when a cap cut some: `--full`, `--per-group 25` (basic has 25 cases per
behavior) and "all" through the API or an experiment file, and the official basic files, are
the same 475 cases. A run mixing sizes plays each case at its own suite's limit; `--max-tokens`
wins everywhere. Checked on what the runs store: each result's `details.max_tokens`, the run's
`generate.max_tokens` and the sizes in its task config.
"""

import asyncio
from collections import Counter
from pathlib import Path
from typing import Unpack

import pytest
from pydantic import JsonValue
from typer.testing import CliRunner

import rulebench
from rulebench.api import RunOptions
from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig
from rulebench.engine.store.database import Store
from rulebench.engine.task import Session
from rulebench.models.base import BackendOptions
from rulebench.models.registry import create_model
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.sizes import Size
from rulebench.scenarios.suites.generated import generate_suite
from rulebench.scenarios.suites.official_writer import write_suite
from rulebench.scenarios.task import ScenarioTask

from tests.stored_json import json_at, json_list

runner = CliRunner()
MODEL = "scripted/echo"
BASIC_CASES = 475
"""The v3 basic suite: 19 behaviors, 25 cases each (the official release's size)."""


class StoredRun:
    """What one run stored: its spec and each result's reply limit by item id."""

    def __init__(self, store: Path, run_id: str) -> None:
        with Store(store, readonly=True) as db:
            self.config: dict[str, JsonValue] = db.get_run(run_id).config
            self.limits = {
                result.item_id: result.outcome.details["max_tokens"]
                for result in db.iter_results(run_id)
                if result.outcome is not None
            }

    @property
    def run_limit(self) -> JsonValue:
        return json_at(self.config, "generate", "max_tokens")

    @property
    def sizes(self) -> JsonValue:
        return json_at(self.config, "task_config", "sizes")


def via_cli(store: Path, *args: str) -> StoredRun:
    before = _run_ids(store)
    result = runner.invoke(app, ["run", "scenarios", *args, "-m", MODEL, "--store", str(store)])
    assert result.exit_code in (0, 1), (result.output, result.exception)  # 1: items failed
    [run_id] = _run_ids(store) - before
    return StoredRun(store, run_id)


def via_api(store: Path, config: dict[str, JsonValue], **options: Unpack[RunOptions]) -> StoredRun:
    report = rulebench.run("scenarios", MODEL, config=config, store=store, **options)
    return StoredRun(store, report.run.id)


def via_experiment(store: Path, options: str) -> StoredRun:
    """The run an experiment file made, in a store of its own (else it reuses a run done)."""
    store = store.with_name(f"exp-{len(list(store.parent.glob('exp-*.sqlite')))}.sqlite")
    before = _run_ids(store)
    path = store.with_suffix(".toml")
    lines = ["[[models]]", f'spec = "{MODEL}"', "[[tasks]]", 'task = "scenarios"']
    path.write_text("\n".join([*lines, f"options = {options}", ""]))
    command = ["experiment", str(path), "--store", str(store), "-o", str(store.parent / "exp")]
    result = runner.invoke(app, command)
    assert result.exit_code in (0, 1), (result.output, result.exception)
    [run_id] = _run_ids(store) - before
    return StoredRun(store, run_id)


def _run_ids(store: Path) -> set[str]:
    if not store.exists():
        return set()
    with Store(store, readonly=True) as db:
        return {run.id for run in db.list_runs()}


@pytest.fixture(scope="module")
def official(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release-shaped data root (`basic/<behavior>.jsonl`) holding the 475 basic cases."""
    root = tmp_path_factory.mktemp("official")
    write_suite(generate_suite("basic", 0), root)
    return root


def test_every_way_of_naming_the_basic_cases_plays_them_at_512(
    tmp_path: Path, official: Path
) -> None:
    store = tmp_path / "s.sqlite"
    runs = {
        "--full": via_cli(store, "--full"),
        "--per-group 25": via_cli(store, "--per-group", "25"),
        "--per-group 30": via_cli(store, "--per-group", "30"),
        "api per_group None": via_api(store, {"per_group": None}),
        "api per_group all": via_api(store, {"per_group": "all"}),
        "api per_group 25": via_api(store, {"per_group": 25}),
        'experiment per_group "all"': via_experiment(store, '{ per_group = "all" }'),
        "-s OFFICIAL/basic": via_cli(store, "-s", str(official / "basic")),
        "-s OFFICIAL": via_cli(store, "-s", str(official)),
    }
    first = set(runs["--full"].limits)
    for way, run in runs.items():
        assert len(run.limits) == BASIC_CASES, way
        assert set(run.limits) == first, way  # the same cases
        assert set(run.limits.values()) == {512}, way
        assert run.run_limit == 512, way
        assert set(json_list(run.sizes)) == {"official"}, way


def test_a_cut_suite_plays_at_the_quick_size(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    runs = {
        "default": via_cli(store),
        "--per-group 24": via_cli(store, "--per-group", "24"),
        "api per_group 5": via_api(store, {"per_group": 5}),
        "experiment per_group 3": via_experiment(store, "{ per_group = 3 }"),
        "redteam --per-group 40": via_cli(store, "-s", "redteam", "--per-group", "40"),
    }
    for way, run in runs.items():
        assert run.limits and set(run.limits.values()) == {128}, way
        assert run.run_limit == 128, way
        assert set(json_list(run.sizes)) == {"quick"}, way


def test_a_mixed_run_plays_each_case_at_its_suites_limit(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    other = tmp_path / "official"
    write_suite(generate_suite("basic", 1), other)  # other cases: ids differ from seed 0's
    files = str(other / "basic")
    quick_ids = {item.id for item in ScenarioTask(suites=["basic"]).items()}
    mixed = via_cli(store, "-s", files, "-s", "basic")
    by_limit = Counter(
        ("quick" if item in quick_ids else "files", limit) for item, limit in mixed.limits.items()
    )
    assert by_limit == {("files", 512): BASIC_CASES, ("quick", 128): 19 * 5}
    assert mixed.run_limit == 128  # the generated suites' limit, as before
    assert mixed.sizes == ["official", "quick"]  # in the order of the suites
    alone = via_cli(store, "-s", files)
    assert set(alone.limits.values()) == {512} and alone.run_limit == 512
    given = via_cli(store, "-s", files, "-s", "basic", "--max-tokens", "64")
    assert len(given.limits) == BASIC_CASES + 19 * 5
    assert set(given.limits.values()) == {64} and given.run_limit == 64
    api = via_api(store, {"suites": [files, "basic"]}, max_tokens=64)
    assert set(api.limits.values()) == {64}


def test_the_cases_line_names_each_suites_limit_when_they_differ(tmp_path: Path) -> None:
    other = tmp_path / "official"
    write_suite(generate_suite("basic", 1), other)
    files = str(other / "basic")
    store = str(tmp_path / "s.sqlite")
    common = ["run", "scenarios", "-m", MODEL, "--store", store, "--limit", "1"]
    mixed = runner.invoke(app, [*common, "-s", files, "-s", "basic"])
    assert f"max_tokens 512 for {files}, 128 for basic" in mixed.output
    given = runner.invoke(app, [*common, "-s", files, "-s", "basic", "--max-tokens", "64"])
    assert "512 for" not in given.output
    official_size = runner.invoke(app, [*common, "--per-group", "25"])
    assert "--full for" not in official_size.output  # it already plays the official size
    quick = runner.invoke(app, [*common])
    assert "--full for the official sizes and max_tokens 512" in quick.output


def test_help_shows_the_sizes_and_limits_of_the_library() -> None:
    from rulebench.scenarios.sizes import official_sizes_text

    result = runner.invoke(app, ["run", "scenarios", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.split())
    assert official_sizes_text() == "25 per behavior in benign and basic, 39-41 in redteam"
    assert official_sizes_text() in text.replace("│ ", "").replace(" │", "")
    assert "max_tokens 512 instead of 128" in text.replace("│ ", "").replace(" │", "")


def test_a_stored_mixed_run_without_sizes_plays_every_case_at_the_run_limit(
    tmp_path: Path,
) -> None:
    """Runs stored before sizes existed resume as they ran: one limit for every case."""
    other = tmp_path / "official"
    write_suite(generate_suite("basic", 1), other)
    suites = [str(other / "basic"), "basic"]
    sizes: tuple[Size, ...] = ("official", "quick")
    assert ScenarioConfig(suites=tuple(suites)).resolved_for(MODEL).sizes == sizes
    played = {
        "stored with sizes": _first_file_case_limit(ScenarioTask(suites=suites, sizes=sizes)),
        "stored before sizes": _first_file_case_limit(ScenarioTask(suites=suites)),
    }
    assert played == {"stored with sizes": 512, "stored before sizes": 128}


def _first_file_case_limit(task: ScenarioTask) -> JsonValue:
    """The reply limit the first case (from the files) plays at, in a run limited to 128."""
    item = task.items()[0]
    model = create_model("scripted/echo", BackendOptions())
    session = Session(model, GenerateConfig(max_tokens=128), None, item.id)
    outcome = asyncio.run(task.solve(item, session))
    return outcome.details["max_tokens"]


def test_sizes_must_name_the_suites() -> None:
    with pytest.raises(ConfigError, match=r"sizes: 2 given for 1 suites \(basic\)"):
        ScenarioConfig(sizes=("quick", "official"))
