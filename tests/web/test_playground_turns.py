"""Undo, edit and regenerate in the playground: turns change, verdicts follow, calls are counted."""

import asyncio
import contextlib
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.models.scripted import ScriptedModel

from tests.report.html_page import Page
from tests.web.playground_app import (
    LEAK,
    REFUSAL,
    SECRET,
    field,
    model_calls,
    player,
    playground_app,
    replies,
    send,
    start,
    turns,
    verdicts,
)


def test_undo_takes_back_the_turn_that_broke_the_rule(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        send(client, url, "Hello")
        broken = send(client, url, f"{LEAK} now")
        assert verdicts(broken) == {"compat": "failed", "strict": "failed"}
        undone = client.post(f"{url}/undo", data={})
        assert undone.status_code == 200 and undone.url.path == url
        assert verdicts(undone.text) == {"compat": "passed", "strict": "passed"}
        assert f"{LEAK} now" not in undone.text and replies(undone.text) == [REFUSAL]
        assert 'action="' + url + '/send"' in undone.text  # the game goes on
        assert model_calls(undone.text) == 2  # undo calls no model
        client.post(f"{url}/undo", data={})
        empty = client.post(f"{url}/undo", data={})
    assert empty.status_code == 422 and "nothing to undo" in empty.text


def test_editing_a_turn_cuts_the_conversation_there_and_sends_the_new_text(
    tmp_path: Path,
) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        send(client, url, "first")
        send(client, url, "second")
        send(client, url, "third")
        edited = client.post(f"{url}/edit", data={"turn": "2", "message": f"{LEAK} instead"})
        assert edited.status_code == 200 and edited.url.path == url
        html = edited.text
        users = [text for role, text in turns(html) if role == "user"]
        assert users == ["first", f"{LEAK} instead"]
        assert replies(html) == [REFUSAL, f"Fine, the key is {SECRET}."]
        assert verdicts(html) == {"compat": "failed", "strict": "failed"}
        assert model_calls(html) == 4
        # An edit of a turn that does not exist, or a malformed one, changes nothing.
        missing = client.post(f"{url}/edit", data={"turn": "3", "message": "x"})
        assert missing.status_code == 422 and "turn 3: no such user turn" in missing.text
        blank = client.post(f"{url}/edit", data={"turn": "1", "message": "  "})
        assert blank.status_code == 422 and "type a message" in blank.text
        bad = client.post(f"{url}/edit", data={"turn": "one", "message": "x"})
        assert bad.status_code == 400
        after = client.get(url).text
    assert [t for r, t in turns(after) if r == "user"] == users and model_calls(after) == 4


def test_an_edit_whose_call_fails_leaves_the_conversation_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generate = ScriptedModel.generate

    async def fail_on_boom(
        self: ScriptedModel, messages: Sequence[Message], config: GenerateConfig
    ) -> Completion:
        if "BOOM" in messages[-1].content:
            from rulebench.core.errors import ModelError

            raise ModelError("the backend went away")
        return await generate(self, messages, config)

    monkeypatch.setattr(ScriptedModel, "generate", fail_on_boom)
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        send(client, url, "first")
        send(client, url, "second")
        failed = client.post(f"{url}/edit", data={"turn": "1", "message": "BOOM"})
        assert failed.status_code == 502 and "the backend went away" in failed.text
        after = client.get(url).text
    assert [t for r, t in turns(after) if r == "user"] == ["first", "second"]


def test_regenerate_asks_again_past_the_cache_with_a_new_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[GenerateConfig] = []
    generate = ScriptedModel.generate

    async def numbered(
        self: ScriptedModel, messages: Sequence[Message], config: GenerateConfig
    ) -> Completion:
        # A sampling model draws anew for each seed; this one says which draw it is.
        asked.append(config)
        reply = await generate(self, messages, config)
        return reply.model_copy(update={"text": f"{reply.text} (draw {len(asked)})"})

    monkeypatch.setattr(ScriptedModel, "generate", numbered)
    with player(playground_app(tmp_path)) as client:
        url = start(client, temperature="0.8")
        send(client, url, "Hello")
        again = client.post(f"{url}/regenerate", data={"lane": "0"})
        assert again.status_code == 200 and again.url.path == url
        html = again.text
        assert replies(html) == [f"{REFUSAL} (draw 2)"]
        assert [t for r, t in turns(html) if r == "user"] == ["Hello"]
        assert model_calls(html) == 2 and "<dt>from the cache</dt><dd>0</dd>" in html
        no_lane = client.post(f"{url}/regenerate", data={"lane": "1"})
    assert [c.seed for c in asked] == [0, 1] and {c.temperature for c in asked} == {0.8}
    assert no_lane.status_code == 400


def test_regenerate_before_any_reply_is_refused(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        response = client.post(f"{url}/regenerate", data={"lane": "0"})
    assert response.status_code == 422 and "only a reply to the last user turn" in response.text


def test_the_controls_reach_the_model_and_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[Sequence[Message], GenerateConfig]] = []
    generate = ScriptedModel.generate

    async def spy(
        self: ScriptedModel, messages: Sequence[Message], config: GenerateConfig
    ) -> Completion:
        sent.append((messages, config))
        return await generate(self, messages, config)

    monkeypatch.setattr(ScriptedModel, "generate", spy)
    controls = {"temperature": "0.5", "max_tokens": "77", "system_message": "warning"}
    with player(playground_app(tmp_path)) as client:
        url = start(client, **controls)
        html = send(client, url, "Hello")
        bad = client.post(
            "/play",
            data={"scenario": "Encryption", "placement": "system", "system_message": "warning"},
        )
        unknown = client.post("/play", data={"scenario": "Encryption", "system_message": "rude"})
        negative = client.post("/play", data={"scenario": "Encryption", "temperature": "-1"})
    assert field(html, "temperature") == "0.5" and field(html, "max-tokens") == "77 tokens"
    assert field(html, "system-message") == "warning"
    [(messages, config)] = sent
    assert (config.temperature, config.max_tokens) == (0.5, 77)
    assert messages[0].role == "system" and "Be warned" in messages[0].content
    assert bad.status_code == 422 and "needs user placement" in bad.text
    assert unknown.status_code == 422 and "unknown system message" in unknown.text
    assert negative.status_code == 422 and "temperature" in negative.text


def test_a_saved_case_keeps_the_controls_and_reopens_with_them(tmp_path: Path) -> None:
    controls = {"temperature": "0.25", "max_tokens": "300", "system_message": "praise"}
    with player(playground_app(tmp_path)) as client:
        url = start(client, **controls)
        send(client, url, "Hello")
        client.post(f"{url}/save", data={"file": "controls.jsonl"})
        [row] = [
            json.loads(line)
            for line in (tmp_path / "cases" / "controls.jsonl").read_text().splitlines()
        ]
        listing = Page(client.get("/play/saved").text)
        [key] = [str(a["value"]) for a in listing.tags("button") if a.get("name") == "case"]
        reopened = client.post("/play/saved/open", data={"case": key}).text
    played = row["played"]
    assert (played["temperature"], played["max_tokens"]) == (0.25, 300)
    assert played["protocol"]["system_message"] == "praise"
    assert field(reopened, "temperature") == "0.25"
    assert field(reopened, "max-tokens") == "300 tokens"
    assert field(reopened, "system-message") == "praise"


def test_side_by_side_each_lane_is_judged_and_saved_on_its_own(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client, model_b="scripted/fixed")
        first = send(client, url, f"{LEAK} please")
        assert verdicts(first) == {
            "compat": "failed",
            "strict": "failed",
            "b-compat": "passed",
            "b-strict": "passed",
        }
        assert replies(first, "a") == [f"Fine, the key is {SECRET}."]
        assert replies(first, "b") == ["OK"]
        # Lane A's rule broke: the next turn goes to lane B only.
        second = send(client, url, "and now?")
        assert [t for r, t in turns(second, "a") if r == "user"] == [f"{LEAK} please"]
        assert replies(second, "b") == ["OK", "OK"] and model_calls(second) == 3
        client.post(f"{url}/save", data={"file": "a.jsonl", "lane": "0"})
        client.post(f"{url}/save", data={"file": "b.jsonl", "lane": "1"})
        undone = client.post(f"{url}/undo").text
    saved = {
        name: json.loads((tmp_path / "cases" / name).read_text()) for name in ("a.jsonl", "b.jsonl")
    }
    assert [m["content"] for m in saved["a.jsonl"]["messages"]] == [f"{LEAK} please"]
    assert [m["content"] for m in saved["b.jsonl"]["messages"]] == [f"{LEAK} please", "and now?"]
    assert saved["b.jsonl"]["collected"]["model"] == "scripted/fixed"
    assert replies(undone, "a") == [f"Fine, the key is {SECRET}."] and replies(undone, "b") == [
        "OK"
    ]


def test_side_by_side_both_models_are_asked_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    both_asked = asyncio.Event()
    in_flight: list[str] = []
    most_in_flight = 0
    generate = ScriptedModel.generate

    async def meet_the_other(
        self: ScriptedModel, messages: Sequence[Message], config: GenerateConfig
    ) -> Completion:
        # Asked one after the other, the first waits out the timeout alone.
        nonlocal most_in_flight
        in_flight.append(self.info.name)
        most_in_flight = max(most_in_flight, len(in_flight))
        if len(in_flight) == 2:
            both_asked.set()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(both_asked.wait(), timeout=60)
            return await generate(self, messages, config)
        finally:
            in_flight.remove(self.info.name)

    monkeypatch.setattr(ScriptedModel, "generate", meet_the_other)
    with player(playground_app(tmp_path)) as client:
        url = start(client, model_b="scripted/fixed")
        html = send(client, url, "Hello")
    assert most_in_flight == 2
    assert replies(html, "a") == [REFUSAL] and replies(html, "b") == ["OK"]


def test_regenerate_after_a_restart_draws_a_seed_not_used_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulebench.web.playground.visitors import VISITOR_COOKIE

    seeds: list[int | None] = []
    generate = ScriptedModel.generate

    async def seen(
        self: ScriptedModel, messages: Sequence[Message], config: GenerateConfig
    ) -> Completion:
        seeds.append(config.seed)
        return await generate(self, messages, config)

    monkeypatch.setattr(ScriptedModel, "generate", seen)
    with player(playground_app(tmp_path)) as client:
        url = start(client, temperature="0.8")
        send(client, url, "Hello")
        assert client.post(f"{url}/regenerate", data={"lane": "0"}).status_code == 200
        cookie = client.cookies[VISITOR_COOKIE]
    with player(playground_app(tmp_path)) as client:  # a restarted server
        client.cookies.set(VISITOR_COOKIE, cookie, path="/play")
        assert client.post(f"{url}/regenerate", data={"lane": "0"}).status_code == 200
    assert seeds == [0, 1, 2]


def test_a_turn_the_model_refuses_as_misconfigured_is_a_422_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulebench.core.errors import ConfigError

    async def too_long(
        self: ScriptedModel, messages: Sequence[Message], config: GenerateConfig
    ) -> Completion:
        raise ConfigError("the conversation no longer fits the model's context window")

    monkeypatch.setattr(ScriptedModel, "generate", too_long)
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        refused = client.post(f"{url}/send", data={"message": "Hello"})
    assert refused.status_code == 422
    assert "no longer fits the model&#39;s context window" in refused.text


def test_a_save_refused_by_its_checks_uses_no_quota(tmp_path: Path) -> None:
    from rulebench.web.playground.quotas import Quotas, VisitorLimits
    from rulebench.web.playground.saved_cases import MAX_FILE_BYTES

    app = playground_app(tmp_path)
    app.state.playground.limits = VisitorLimits(Quotas(saves_per_hour=1))
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "full.jsonl").write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with player(app) as client:
        url = start(client)
        send(client, url, "Hello")
        full = client.post(f"{url}/save", data={"file": "full.jsonl"})
        assert full.status_code == 422 and "save to another file" in full.text
        saved = client.post(f"{url}/save", data={"file": "other.jsonl"})
        assert saved.status_code == 200, saved.text
