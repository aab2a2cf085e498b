"""Untrusted reply bytes made safe: surrogates, size caps, echoed secrets, absurd numbers."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.errors import TransientModelError
from rulebench.core.text import surrogate_warning
from rulebench.models.openai.reply import clean_server_text, parse_reply

KEY = "sk-reply-1a2b3c4d"


def body(content: str, **usage: object) -> bytes:
    data = {"choices": [{"message": {"content": content}, "finish_reason": "stop"}]}
    return json.dumps(data | ({"usage": usage} if usage else {})).encode()


def test_a_lone_surrogate_is_repaired_and_recorded() -> None:
    raw = body("cut emoji \ud83d")  # json.dumps writes the escape \ud83d
    assert b"\\ud83d" in raw
    reply = parse_reply(raw)
    assert reply.text == "cut emoji \ufffd"
    assert reply.warnings == (surrogate_warning(1, "reply"),)
    reply.text.encode("utf-8")


def test_a_clean_reply_has_no_warnings() -> None:
    assert parse_reply(body("fine \U0001f600")).warnings == ()


def test_a_long_reply_is_cut_with_a_warning() -> None:
    reply = parse_reply(body("x" * 50), max_chars=10)
    assert reply.text == "x" * 10
    assert reply.warnings == ("reply cut at 10 characters (max_reply_chars)",)


def test_a_key_in_the_reply_text_is_scrubbed_with_a_warning() -> None:
    reply = parse_reply(body(f"your key is {KEY}"), secrets=(KEY,))
    assert reply.text == "your key is ***"
    assert reply.warnings and "API key" in reply.warnings[0]


@pytest.mark.parametrize("tokens", ["1e400", "NaN", "Infinity"])
def test_absurd_token_counts_are_a_malformed_reply(tokens: str) -> None:
    raw = body("hi").replace(b"}]}", b'}], "usage": {"prompt_tokens": ' + tokens.encode() + b"}}")
    with pytest.raises(TransientModelError, match="malformed reply"):
        parse_reply(raw)


def test_clean_server_text_removes_secrets_and_surrogates() -> None:
    assert clean_server_text(f"bad key {KEY} \ud83d", (KEY,)) == "bad key *** \ufffd"


@given(st.binary(max_size=200))
def test_any_body_parses_or_is_a_transient_failure(raw: bytes) -> None:
    try:
        reply = parse_reply(raw, max_chars=50)
    except TransientModelError as exc:
        str(exc).encode("utf-8")
    else:
        reply.text.encode("utf-8")
        assert len(reply.text) <= 50


def test_a_surrogate_in_a_malformed_reply_message_is_repaired() -> None:
    with pytest.raises(TransientModelError) as caught:
        parse_reply(b'{"error": {"message": "overloaded \\ud83d"}}')
    assert str(caught.value) == "malformed reply: overloaded \ufffd"
