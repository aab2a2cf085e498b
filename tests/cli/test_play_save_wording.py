"""`play --save` records how a game was played, and its replay command replays it so.

The record (`played`: reply limit, temperature, protocol with wording and clone) sits in a
field the official merged layout's other readers ignore; `run scenarios -s FILE -m SPEC`
replays from it, naming the clone with `--upstream PATH` for a game in upstream's wording.
"""

import json
import shlex
from pathlib import Path

from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.scenarios.upstream.text import open_clone

from tests.scenarios.upstream_fixture import build_clone, template
from tests.stored_json import json_at

runner = CliRunner()


def _play(save: Path, *options: str) -> str:
    """Play one Encryption turn against a fixed reply; the replay command it printed."""
    args = ["play", "Encryption", "-m", "scripted/fixed", "-M", "reply=nope", "--seed", "3"]
    result = runner.invoke(app, [*args, "--save", str(save), *options], input="Key?\n/quit\n")
    assert result.exit_code == 0, (result.output, result.exception)
    [hint] = [line for line in result.output.splitlines() if line.startswith("replay it with: ")]
    return hint.removeprefix("replay it with: ")


def _saved(save: Path) -> dict[str, JsonValue]:
    [row] = [json.loads(line) for line in save.read_text(encoding="utf-8").splitlines()]
    assert isinstance(row, dict)
    return row


def _replay(command: str, store: Path) -> tuple[str, dict[str, JsonValue]]:
    """Run the printed command; the first message the model was sent and the stored spec."""
    words = shlex.split(command)
    assert words[:3] == ["rulebench", "run", "scenarios"], command
    extra = ["-M", "reply=nope", "--store", str(store)]
    result = runner.invoke(app, [*words[1:], *extra])
    assert result.exit_code == 0, (result.output, result.exception)
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        [item] = list(db.iter_results(run.id))
    return item.messages[0].content, run.config


def test_an_upstream_game_replays_in_the_clone_text(tmp_path: Path) -> None:
    folder = build_clone(tmp_path / "clone")
    save = tmp_path / "saved cases" / "mine.jsonl"
    save.parent.mkdir()
    command = _play(save, "--prompts", "upstream", "--upstream", str(tmp_path / "clone"))
    source = open_clone(folder).source
    words = ["rulebench", "run", "scenarios", "-s", str(save), "-m", "scripted/fixed"]
    assert command == shlex.join([*words, "--upstream", source.root])
    protocol = json_at(_saved(save), "played", "protocol")
    assert json_at(protocol, "prompts") == "upstream"
    assert json_at(protocol, "upstream") == source.model_dump(mode="json")
    params = json.loads(str(_saved(save)["params_json"]))
    sent, spec = _replay(command, tmp_path / "s.sqlite")
    assert sent == template("Encryption").format(**params)
    assert json_at(spec, "task_config", "protocol") == protocol


def test_without_upstream_path_the_recorded_clone_is_read(tmp_path: Path) -> None:
    build_clone(tmp_path / "clone")
    save = tmp_path / "mine.jsonl"
    command = _play(save, "--prompts", "upstream", "--upstream", str(tmp_path / "clone"))
    plain = shlex.join(shlex.split(command)[:7])  # without --upstream PATH
    sent, _ = _replay(plain, tmp_path / "s.sqlite")
    params = json.loads(str(_saved(save)["params_json"]))
    assert sent == template("Encryption").format(**params)


def test_a_game_in_our_wording_records_it_and_replays_plainly(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    command = _play(save)
    assert command == f"rulebench run scenarios -s {save} -m scripted/fixed"
    played = json_at(_saved(save), "played")
    assert json_at(played, "max_tokens") == 512 and json_at(played, "temperature") == 0.0
    assert json_at(played, "protocol", "prompts") == "rulebench"
    assert json_at(played, "protocol", "upstream") is None
    clone_text = template("Encryption").split("'")[0]
    sent, spec = _replay(command, tmp_path / "s.sqlite")
    assert not sent.startswith(clone_text)
    assert json_at(spec, "generate", "max_tokens") == 512


def test_placement_and_mode_replay_from_the_record(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    command = _play(save, "--placement", "system", "--mode", "strict", "--max-tokens", "40")
    assert command == f"rulebench run scenarios -s {save} -m scripted/fixed"
    _, spec = _replay(command, tmp_path / "s.sqlite")
    assert json_at(spec, "task_config", "protocol", "placement") == "system"
    assert json_at(spec, "task_config", "protocol", "mode") == "strict"
    assert json_at(spec, "generate", "max_tokens") == 40


def test_a_replay_names_the_wording_its_saved_case_uses(tmp_path: Path) -> None:
    build_clone(tmp_path / "clone")
    save = tmp_path / "mine.jsonl"
    command = _play(save, "--prompts", "upstream", "--upstream", str(tmp_path / "clone"))
    extra = ["-M", "reply=nope", "--store", str(tmp_path / "s.sqlite")]
    result = runner.invoke(app, [*shlex.split(command)[1:], *extra])
    assert result.exit_code == 0, (result.output, result.exception)
    [line] = [line for line in result.output.splitlines() if line.startswith("cases: ")]
    assert "saved cases as recorded (" in line and "prompts: upstream (clone at commit" in line
    assert "prompts: rulebench" not in line  # every case is the saved one: no "others"
