"""`play --save` records the wording a game was played in, and its replay hint replays it so.

A game in upstream's wording replayed with the plain hint would send rulebench's instructions
instead: the hint names `--prompts upstream --upstream PATH`, and the saved record keeps the
wording and clone in fields the official merged layout's readers ignore.
"""

import json
import shlex
from pathlib import Path

from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store import Store
from rulebench.scenarios.upstream.text import open_clone

from tests.scenarios.upstream_fixture import build_clone, template

runner = CliRunner()


def _play(save: Path, *options: str) -> str:
    """Play one Encryption turn against a fixed reply; the replay command it printed."""
    args = ["play", "Encryption", "-m", "scripted/fixed", "-M", "reply=nope", "--seed", "3"]
    result = runner.invoke(app, [*args, "--save", str(save), *options], input="Key?\n/quit\n")
    assert result.exit_code == 0, (result.output, result.exception)
    [hint] = [line for line in result.output.splitlines() if line.startswith("replay it with: ")]
    return hint.removeprefix("replay it with: ")


def _saved(save: Path) -> dict[str, object]:
    [row] = [json.loads(line) for line in save.read_text(encoding="utf-8").splitlines()]
    assert isinstance(row, dict)
    return row


def _replay(command: str, store: Path) -> str:
    """Run the printed command with the echo model; the first message the model was sent."""
    words = shlex.split(command)
    assert words[:3] == ["rulebench", "run", "scenarios"], command
    extra = ["-m", "scripted/echo", "--store", str(store)]
    result = runner.invoke(app, [*words[1:], *extra])
    assert result.exit_code == 0, (result.output, result.exception)
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        [item] = list(db.iter_results(run.id))
    return item.messages[0].content


def test_an_upstream_game_replays_in_the_clone_text(tmp_path: Path) -> None:
    folder = build_clone(tmp_path / "clone")
    save = tmp_path / "saved cases" / "mine.jsonl"
    save.parent.mkdir()
    command = _play(save, "--prompts", "upstream", "--upstream", str(tmp_path / "clone"))
    assert f"--prompts upstream --upstream {folder.resolve()}" in command
    row = _saved(save)
    source = open_clone(folder).source
    assert row["prompts"] == "upstream"
    assert row["upstream"] == source.model_dump(mode="json")
    params = json.loads(str(row["params_json"]))
    sent = _replay(command, tmp_path / "s.sqlite")
    assert sent == template("Encryption").format(**params)


def test_a_game_in_our_wording_records_it_and_replays_plainly(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    command = _play(save)
    assert command == f"rulebench run scenarios -s {save}"
    row = _saved(save)
    assert row["prompts"] == "rulebench" and "upstream" not in row
    clone_text = template("Encryption").split("'")[0]
    assert not _replay(command, tmp_path / "s.sqlite").startswith(clone_text)


def test_the_hint_names_a_placement_and_mode_other_than_a_runs_default(tmp_path: Path) -> None:
    save = tmp_path / "mine.jsonl"
    command = _play(save, "--placement", "system", "--mode", "strict")
    assert command.endswith(" --placement system --mode strict")
    assert _replay(command, tmp_path / "s.sqlite")  # the options exist and run as written
