"""Conversations outlive the server: in the save folder's playground database, not the store."""

import sqlite3
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.web.app import create_app
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.playground.conversation_store import DATABASE_NAME
from rulebench.web.playground.visitors import VISITOR_COOKIE

from tests.web.playground_app import (
    LEAK,
    REFUSAL,
    player,
    playground_app,
    replies,
    send,
    start,
    turns,
    verdicts,
)


def test_a_restarted_server_shows_the_visitors_game_and_it_goes_on(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client, temperature="0.5", max_tokens="99")
        send(client, url, "Hello")
        send(client, url, "still there?")
        client.post(f"{url}/undo")
        cookie = client.cookies[VISITOR_COOKIE]
    store_before = (tmp_path / "s.sqlite").read_bytes()
    with player(playground_app(tmp_path)) as client:  # a new app: nothing in memory
        client.cookies.set(VISITOR_COOKIE, cookie, path="/play")
        page = client.get(url)
        assert page.status_code == 200
        assert turns(page.text) == [("user", "Hello"), ("assistant", REFUSAL)]
        assert '<dd id="temperature">0.5</dd>' in page.text
        assert '<dd id="max-tokens">99 tokens</dd>' in page.text
        assert url in client.get("/play").text  # listed among the visitor's games
        leaked = send(client, url, f"{LEAK} now")
    assert verdicts(leaked) == {"compat": "failed", "strict": "failed"}
    assert replies(leaked) == [REFUSAL, "Fine, the key is opensesame."]
    assert (tmp_path / "s.sqlite").read_bytes() == store_before  # the store is never written
    with player(playground_app(tmp_path)) as client:
        client.cookies.set(VISITOR_COOKIE, cookie, path="/play")
        assert verdicts(client.get(url).text)["compat"] == "failed"


def test_another_visitor_cannot_reach_a_stored_conversation(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        send(client, url, "Hello")
    with player(playground_app(tmp_path)) as stranger:
        stranger.get("/play")  # gets a visitor cookie of its own
        assert stranger.get(url).status_code == 404
        assert stranger.post(f"{url}/undo").status_code == 404
        assert url not in stranger.get("/play").text


def test_the_visitor_cookie_lasts_beyond_the_browser_session(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        header = client.get("/play").headers["set-cookie"]
    assert f"Max-Age={30 * 24 * 3600}" in header and "HttpOnly" in header


def test_conversations_live_in_the_save_folder_not_the_store(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        send(client, url, "Hello")
    database = tmp_path / "cases" / DATABASE_NAME
    with sqlite3.connect(database) as db:
        [(conversation_id, user_turns, state)] = db.execute(
            "SELECT id, user_turns, state FROM conversations"
        ).fetchall()
    db.close()
    assert url.endswith(conversation_id) and (user_turns, state) == (1, "passed")
    with sqlite3.connect(tmp_path / "s.sqlite") as store:
        tables = {row[0] for row in store.execute("SELECT name FROM sqlite_master")}
    store.close()
    assert "conversations" not in tables


@pytest.mark.parametrize(
    "content", [b"this is not a database at all, just text" * 100, "foreign"], ids=str
)
def test_a_foreign_or_corrupt_playground_database_stops_the_server(
    tmp_path: Path, content: bytes | str
) -> None:
    database = tmp_path / "cases" / DATABASE_NAME
    database.parent.mkdir()
    if isinstance(content, bytes):
        database.write_bytes(content)
    else:
        with sqlite3.connect(database) as db:
            db.execute("CREATE TABLE notes (text TEXT)")
        db.close()
    with pytest.raises(ConfigError, match="not a playground database") as raised:
        playground_app(tmp_path)
    assert str(database) in str(raised.value)


def test_the_list_of_games_says_when_it_shows_only_the_most_recent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("rulebench.web.playground.state.MAX_LISTED", 2)
    with player(playground_app(tmp_path)) as client:
        urls = [start(client) for _ in range(3)]
        listing = client.get("/play").text
    assert urls[0] not in listing and urls[1] in listing and urls[2] in listing
    assert "The 2 most recent of your 3 conversations." in listing


def test_a_stored_game_whose_model_the_server_no_longer_offers_is_explained(
    tmp_path: Path,
) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        send(client, url, "Hello")
        cookie = client.cookies[VISITOR_COOKIE]
    store = tmp_path / "s.sqlite"
    config = PlaygroundConfig(save_dir=tmp_path / "cases", model="scripted/echo", any_model=False)
    with player(create_app(store, playground=config)) as client:
        client.cookies.set(VISITOR_COOKIE, cookie, path="/play")
        page = client.get(url)
    assert page.status_code == 409
    assert "this game cannot go on on this server" in page.text and "scripted/echo" in page.text
