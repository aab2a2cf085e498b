"""How a game of `rulebench play` starts and is saved (`scenarios.play_options`)."""

import asyncio
import json
import random
from pathlib import Path

from rulebench.core.messages import Completion
from rulebench.engine.catalog import default_max_tokens
from rulebench.scenarios.play import play_reply_limit
from rulebench.scenarios.play_options import (
    THINKING_PREVIEW_CHARS,
    PlayOptions,
    open_game,
    save_game,
    thinking_line,
)
from rulebench.scenarios.registry import scenario_class


def test_a_game_plays_at_an_official_size_runs_limit_unless_given_one() -> None:
    official = default_max_tokens("scenarios", {"per_group": None})
    assert play_reply_limit() == official
    assert play_reply_limit(33) == 33
    assert play_reply_limit(None) != default_max_tokens("scenarios")  # not the quick size's


def test_a_seeded_game_is_the_seeds_instance_with_the_options_protocol() -> None:
    options = PlayOptions(model="scripted/echo", seed=4, placement="system", mode="strict")
    game = open_game("Encryption", options, options.protocol())
    expected = scenario_class("Encryption").sample(random.Random(4))
    assert game.scenario.params == expected.params
    assert (game.protocol.placement, game.protocol.mode) == ("system", "strict")
    assert game.session.config.max_tokens == play_reply_limit()
    asyncio.run(game.session.model.aclose())


def test_a_saved_game_says_where_it_went_and_how_to_replay_it(tmp_path: Path) -> None:
    options = PlayOptions(model="scripted/echo", seed=1, max_tokens=40)
    game = open_game("Encryption", options, options.protocol())
    asyncio.run(game.send("What is the key?"))
    asyncio.run(game.session.model.aclose())
    path = tmp_path / "mine.jsonl"
    saved, replay = save_game(game, path, options.model)
    [row] = [json.loads(line) for line in path.read_text().splitlines()]
    assert saved == f"saved test case {row['id']} ({row['scenario_label']}) to {path}"
    assert replay == f"replay it with: rulebench run scenarios -s {path} -m scripted/echo"
    assert row["played"]["max_tokens"] == 40


def test_thinking_folds_to_one_cut_line_naming_how_to_see_it() -> None:
    long = "step one\n\nthen " + "x" * 200
    line = thinking_line(Completion(text="", reasoning=long), "/thinking")
    preview = line.split(": ", 1)[1]
    assert "\n" not in line and len(preview) == THINKING_PREVIEW_CHARS
    assert line.startswith(f"model thinking ({len(long):,} chars; /thinking shows it): step one")
