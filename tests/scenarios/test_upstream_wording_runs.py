"""Runs with upstream's text: what the model is sent, what is recorded, and the cache."""

from pathlib import Path

import pytest
from pydantic import JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.items import ItemResult
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel
from rulebench.scenarios.protocol import PUBLISHED_V3, Protocol, stored_prompts_label
from rulebench.scenarios.registry import scenario_class
from rulebench.scenarios.task import ScenarioTask
from rulebench.scenarios.upstream.text import open_clone

from tests.scenarios.upstream_fixture import (
    AFTER,
    BEFORE_ONE,
    DATA_UNDER,
    PARAMS,
    build_clone,
    head_commit,
    template,
)
from tests.stored_json import json_at


@pytest.fixture
def clone_root(tmp_path: Path) -> Path:
    root = tmp_path / "llm_rules"
    build_clone(root)
    return root


def _suite(root: Path) -> str:
    return str(root / DATA_UNDER["llm_rules"])


async def _run(store: Store, task: ScenarioTask, model: ScriptedModel) -> list[ItemResult]:
    spec = RunSpec(task="scenarios", model="scripted/echo", task_config=task.config())
    report = await Runner(store).run(task, model, spec)
    return list(store.iter_results(report.run.id))


def _upstream(root: Path, **fields: object) -> Protocol:
    source = open_clone(root).source
    return Protocol.model_validate({**fields, "prompts": "upstream", "upstream": source})


async def test_published_setup_sends_the_clone_text_as_the_system_message(
    store: Store, clone_root: Path
) -> None:
    protocol = _upstream(clone_root, **PUBLISHED_V3.model_dump(exclude={"prompts", "upstream"}))
    model = ScriptedModel("echo")
    [result] = await _run(
        store, ScenarioTask(suites=[_suite(clone_root)], protocol=protocol), model
    )
    system = model.calls[0][0]
    expected = template("Encryption").format(**PARAMS["Encryption"])
    assert system.role == "system"
    assert system.content == expected.replace(BEFORE_ONE, "").replace(AFTER, "")
    assert result.outcome is not None and result.outcome.details["prompts"] == "upstream"


async def test_user_placement_with_reminders_sends_the_whole_template(
    store: Store, clone_root: Path
) -> None:
    model = ScriptedModel("echo")
    task = ScenarioTask(suites=[_suite(clone_root)], protocol=_upstream(clone_root))
    await _run(store, task, model)
    first = model.calls[0][0]
    assert (first.role, first.content) == ("user", template("Encryption").format(secret="plum42"))


async def test_the_two_wordings_never_share_a_cached_reply(store: Store, clone_root: Path) -> None:
    suite = [_suite(clone_root)]
    ours, theirs, again = ScriptedModel("echo"), ScriptedModel("echo"), ScriptedModel("echo")
    [a] = await _run(store, ScenarioTask(suites=suite), ours)
    [b] = await _run(store, ScenarioTask(suites=suite, protocol=_upstream(clone_root)), theirs)
    assert ours.calls and theirs.calls  # the second wording was sent to the model, not cached
    assert ours.calls[0][0].content != theirs.calls[0][0].content
    assert (
        ours.calls[0][0].content
        == scenario_class("Encryption").from_params(PARAMS["Encryption"]).prompt()
    )
    assert a.item_id == b.item_id  # the same case: runs in both wordings pair up
    # The same wording again is answered from the cache: the keys are the text's, not the run's.
    [c] = await _run(store, ScenarioTask(suites=suite, protocol=_upstream(clone_root)), again)
    assert again.calls == [] and c.cache_hits == c.calls


async def test_the_run_records_the_choice_and_the_commit(store: Store, clone_root: Path) -> None:
    task = ScenarioTask(suites=[_suite(clone_root)], protocol=_upstream(clone_root))
    spec = RunSpec(task="scenarios", model="scripted/echo", task_config=task.config())
    report = await Runner(store).run(task, ScriptedModel("echo"), spec)
    protocol = json_at(store.get_run(report.run.id).config, "task_config", "protocol")
    commit = head_commit(clone_root)
    assert json_at(protocol, "prompts") == "upstream"
    assert json_at(protocol, "upstream", "revision") == f"commit {commit}"
    assert stored_prompts_label(protocol) == f"prompts: upstream (clone at commit {commit[:8]})"
    assert Protocol.model_validate(protocol).label().endswith(f"clone at commit {commit[:8]})")


def test_runs_stored_before_the_choice_read_as_rulebench_wording() -> None:
    assert stored_prompts_label({"placement": "user", "reminders": True}) == "prompts: rulebench"
    assert stored_prompts_label(None) == "prompts: rulebench"


def test_a_clone_record_this_version_cannot_read_still_names_the_wording() -> None:
    stored: JsonValue = {"prompts": "upstream", "upstream": {"root": "/somewhere"}}
    assert stored_prompts_label(stored) == "prompts: upstream"


def test_an_edited_clone_cannot_resume_a_run(clone_root: Path) -> None:
    protocol = _upstream(clone_root)
    games = clone_root / "llm_rules" / "scenarios" / "games.py"
    games.write_text(games.read_text().replace("Guessing game", "A guessing game"))
    with pytest.raises(ConfigError, match="changed since this run recorded them"):
        ScenarioTask(suites=[_suite(clone_root)], protocol=protocol)


def test_upstream_wording_refuses_v1_files(clone_root: Path) -> None:
    with pytest.raises(ConfigError, match="v3 text only"):
        ScenarioTask(suites=[_suite(clone_root)], protocol=_upstream(clone_root), version="v1")


def test_a_protocol_is_upstream_exactly_when_it_names_a_clone(clone_root: Path) -> None:
    with pytest.raises(ConfigError, match="needs upstream: the folder of your clone"):
        Protocol(prompts="upstream")
    with pytest.raises(ConfigError, match="prompts is 'rulebench'"):
        Protocol(upstream=open_clone(clone_root).source)


def test_a_library_caller_names_the_clone_by_its_folder(tmp_path: Path) -> None:
    from rulebench.api import run_spec

    folder = build_clone(tmp_path / "clone")
    protocol: JsonValue = {"prompts": "upstream", "upstream": str(tmp_path / "clone")}
    spec = run_spec("scenarios", "scripted/echo", {"protocol": protocol}, {})
    stored = spec.task_config["protocol"]
    assert isinstance(stored, dict) and isinstance(stored["upstream"], dict)
    assert stored["upstream"]["revision"] == f"commit {head_commit(tmp_path / 'clone')}"
    assert Path(str(stored["upstream"]["root"])) == folder.resolve()
    with pytest.raises(ConfigError, match="needs upstream: the folder of your clone"):
        run_spec("scenarios", "scripted/echo", {"protocol": {"prompts": "upstream"}}, {})
