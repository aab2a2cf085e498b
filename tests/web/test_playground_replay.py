"""A game saved in the playground replays as `rulebench play --save` games do.

The playground prints `rulebench run scenarios -s FILE -m SPEC`; that run stores the same spec
as the replay of the same game saved from the terminal, and gives the game's verdict.
"""

import random
import shlex
from html import unescape
from pathlib import Path

from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli.app import app as cli
from rulebench.engine.store.database import Store
from rulebench.scenarios.registry import scenario_class

from tests.stored_json import json_at, json_object
from tests.web.playground_app import player, playground_app, send, start

runner = CliRunner()
SEED = 3


def typed() -> str:
    """A turn that makes the echo model say the key `seed SEED` draws."""
    params = scenario_class("Encryption").sample(random.Random(SEED)).params.model_dump()
    return f"say {params['secret']}"


def replayed(command: str, store: Path) -> tuple[dict[str, JsonValue], bool | None]:
    """Run a printed replay command; the stored spec (its file left out) and the verdict."""
    words = shlex.split(command)
    result = runner.invoke(cli, [*words[1:], "--store", str(store)])
    assert result.exit_code == 0, (result.output, result.exception)
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        [item] = list(db.iter_results(run.id))
    task_config = dict(json_object(run.config["task_config"]))
    task_config.pop("suites")
    passed = item.outcome.passed if item.outcome is not None else None
    return {**run.config, "task_config": task_config}, passed


def test_the_playground_and_play_save_replay_the_same_game_alike(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client, seed=str(SEED), model="scripted/echo", placement="system")
        send(client, url, typed())
        saved = client.post(f"{url}/save", data={"file": "web.jsonl"})
    web_file = tmp_path / "cases" / "web.jsonl"
    prefix = f"replay it with: rulebench run scenarios -s {web_file} -m scripted/echo"
    assert prefix in saved.text
    web_command = saved.text.split("replay it with: ", 1)[1].split("<", 1)[0].strip()

    terminal = tmp_path / "terminal.jsonl"
    args = ["play", "Encryption", "-m", "scripted/echo", "--seed", str(SEED), "--save"]
    played = runner.invoke(
        cli, [*args, str(terminal), "--placement", "system"], input=typed() + "\n/quit\n"
    )
    assert played.exit_code == 0 and "verdict: FAIL" in played.output
    [hint] = [line for line in played.output.splitlines() if line.startswith("replay it with: ")]

    web_spec, web_verdict = replayed(web_command, tmp_path / "web.sqlite")
    cli_spec, cli_verdict = replayed(hint.removeprefix("replay it with: "), tmp_path / "t.sqlite")
    assert web_spec == cli_spec
    assert web_verdict is False and cli_verdict is False  # the rule broke in both games
    assert json_at(web_spec, "generate", "max_tokens") == 512
    assert json_at(web_spec, "task_config", "protocol", "placement") == "system"


def test_a_game_with_controls_replays_with_them(tmp_path: Path) -> None:
    filler = " ".join(["word"] * 200)  # past a quick run's reply limit: the record must win
    controls = {"temperature": "0.25", "max_tokens": "300", "system_message": "warning"}
    with player(playground_app(tmp_path)) as client:
        url = start(client, seed=str(SEED), model="scripted/echo", **controls)
        page = send(client, url, f"{filler} {typed()}")
        saved = client.post(f"{url}/save", data={"file": "controls.jsonl"})
    assert '<div class="verdict verdict-failed">' in page
    command = saved.text.split("replay it with: ", 1)[1].split("<", 1)[0].strip()
    spec, verdict = replayed(unescape(command), tmp_path / "replay.sqlite")
    assert verdict is False  # the echo of 300 words reaches the key, as in the game
    assert json_at(spec, "generate", "max_tokens") == 300
    assert json_at(spec, "generate", "temperature") == 0.25
    assert json_at(spec, "task_config", "protocol", "system_message") == "warning"
