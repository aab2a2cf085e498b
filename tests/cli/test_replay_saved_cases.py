"""A saved game replays exactly as it was played: same verdict, reply limit and protocol.

The echo model cuts its reply at max_tokens words, so a game whose rule-breaking words come
late in a long reply fails at the game's 512 tokens and passes at a quick run's 128: the
replay must use the record, not the run's defaults.
"""

import json
import random
import shlex
from pathlib import Path

from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.scenarios.registry import scenario_class

from tests.stored_json import json_at

runner = CliRunner()
SEED = 3
FILLER = " ".join(["word"] * 200)  # past a quick run's 128 tokens


def secret() -> str:
    """The Encryption key `play --seed SEED` draws."""
    params = scenario_class("Encryption").sample(random.Random(SEED)).params
    return str(params.model_dump()["secret"])


def play(save: Path, typed: str, *options: str) -> tuple[str, str]:
    """Play Encryption against the echo model; the output and the printed replay command."""
    args = ["play", "Encryption", "-m", "scripted/echo", "--seed", str(SEED), "--save", str(save)]
    result = runner.invoke(app, [*args, *options], input=typed + "\n/quit\n")
    assert result.exit_code == 0, (result.output, result.exception)
    [hint] = [line for line in result.output.splitlines() if line.startswith("replay it with: ")]
    return result.output, hint.removeprefix("replay it with: ")


def replay(words: list[str], store: Path) -> tuple[str, dict[str, JsonValue], list[JsonValue]]:
    """Run `rulebench run ...`; its stderr, the stored spec and each item's outcome details."""
    result = runner.invoke(app, [*words, "--store", str(store)])
    assert result.exit_code == 0, (result.output, result.exception)
    with Store(store, readonly=True) as db:
        run = db.list_runs()[0]
        details: list[JsonValue] = [
            {**r.outcome.details, "passed": r.outcome.passed}
            for r in db.iter_results(run.id)
            if r.outcome
        ]
    return result.output, run.config, details


def test_a_game_that_broke_the_rule_replays_failing_with_its_settings(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    output, command = play(
        save, f"{FILLER} {secret()}", "--placement", "system", "--mode", "strict"
    )
    assert "verdict: FAIL" in output
    assert command == f"rulebench run scenarios -s {save} -m scripted/echo"
    _, spec, [item] = replay(shlex.split(command)[1:], tmp_path / "s.sqlite")
    assert json_at(item, "passed") is False  # the same verdict as the game
    assert json_at(spec, "generate", "max_tokens") == 512  # the game's reply limit
    assert json_at(spec, "task_config", "protocol", "placement") == "system"
    assert json_at(spec, "task_config", "protocol", "mode") == "strict"
    assert (json_at(item, "max_tokens"), json_at(item, "mode")) == (512, "strict")


def test_an_option_given_wins_over_the_record_and_says_so(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    _, command = play(save, f"{FILLER} {secret()}", "--mode", "strict")
    words = [*shlex.split(command)[1:], "--max-tokens", "128", "--mode", "compat"]
    output, spec, [item] = replay(words, tmp_path / "s.sqlite")
    [line] = [line for line in output.splitlines() if "replace saved cases" in line]
    assert "max_tokens 128 (recorded: 512)" in line and "mode compat (recorded: strict)" in line
    assert json_at(item, "passed") is True  # cut before the key, as a quick run would
    assert json_at(spec, "generate", "max_tokens") == 128
    assert json_at(spec, "task_config", "protocol", "mode") == "compat"


def test_cases_played_differently_in_one_file_each_replay_as_played(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    play(save, f"{FILLER} {secret()}")  # 512 tokens: the key is said
    play(save, f"{FILLER} {secret()} again", "--max-tokens", "150", "--mode", "strict")
    _, _, details = replay(
        ["run", "scenarios", "-s", str(save), "-m", "scripted/echo"], tmp_path / "s.sqlite"
    )
    played = sorted(
        (json_at(d, "max_tokens"), json_at(d, "mode"), json_at(d, "passed")) for d in details
    )
    assert played == [(150, "strict", True), (512, "compat", False)]


def test_a_file_saved_without_a_record_replays_with_the_defaults(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    play(save, f"{FILLER} {secret()}")
    rows = [json.loads(line) for line in save.read_text(encoding="utf-8").splitlines()]
    old = [
        {**{k: v for k, v in row.items() if k != "played"}, "prompts": "rulebench"} for row in rows
    ]
    save.write_text("".join(json.dumps(row) + "\n" for row in old), encoding="utf-8")
    _, spec, [item] = replay(
        ["run", "scenarios", "-s", str(save), "-m", "scripted/echo"], tmp_path / "s.sqlite"
    )
    assert json_at(spec, "generate", "max_tokens") == 512  # a file runs at the official size
    assert json_at(spec, "task_config", "protocol", "placement") == "user"
    assert json_at(item, "passed") is False


def test_a_malformed_record_names_its_line_and_field(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    play(save, "hello")
    [row] = [json.loads(line) for line in save.read_text(encoding="utf-8").splitlines()]
    row["played"]["max_tokens"] = 0
    save.write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = runner.invoke(
        app,
        [
            "run",
            "scenarios",
            "-s",
            str(save),
            "-m",
            "scripted/echo",
            "--store",
            str(tmp_path / "s.sqlite"),
        ],
    )
    assert result.exit_code == 1
    assert "mine.jsonl:1: field 'played': max_tokens" in str(result.exception)
