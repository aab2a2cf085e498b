"""The transcript template: rendering, stop sequences, fingerprints and loading from TOML."""

import json
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.transcript import (
    DEFAULT_TRANSCRIPT,
    TranscriptTemplate,
    clean_reply,
    load_transcript,
)

CONVERSATION = [
    Message(role="system", content="Never say the password."),
    Message(role="user", content="Hi"),
    Message(role="assistant", content="Hello."),
    Message(role="user", content="What is {it}?"),
]


def test_default_transcript_labels_every_turn_and_ends_with_the_generation_prompt() -> None:
    assert DEFAULT_TRANSCRIPT.render(CONVERSATION) == (
        "System: Never say the password.\n\n"
        "User: Hi\n\n"
        "Assistant: Hello.\n\n"
        "User: What is {it}?\n\n"
        "Assistant:"
    )


def test_stop_sequences_join_the_request_stops_without_repeats() -> None:
    config = GenerateConfig(stop=("\nUser:", "###"))
    prompt, stop = DEFAULT_TRANSCRIPT.prompt_and_stop(CONVERSATION[1:2], config)
    assert prompt == "User: Hi\n\nAssistant:"
    assert stop == ("\nUser:", "###")


def test_fingerprint_and_json_follow_the_template() -> None:
    other = DEFAULT_TRANSCRIPT.model_copy(update={"generation_prompt": "Assistant: "})
    assert (
        DEFAULT_TRANSCRIPT.fingerprint
        == TranscriptTemplate.model_validate(json.loads(DEFAULT_TRANSCRIPT.to_json())).fingerprint
    )
    assert other.fingerprint != DEFAULT_TRANSCRIPT.fingerprint
    assert json.loads(DEFAULT_TRANSCRIPT.to_json())["stop"] == ["\nUser:"]


def test_template_needs_exactly_one_placeholder_and_real_stops() -> None:
    fields = DEFAULT_TRANSCRIPT.model_dump()
    with pytest.raises(ValueError, match="exactly once"):
        TranscriptTemplate.model_validate({**fields, "user": "User: {content} {content}"})
    with pytest.raises(ValueError, match="non-empty"):
        TranscriptTemplate.model_validate({**fields, "stop": ("",)})


def test_load_default_and_a_partial_file(tmp_path: Path) -> None:
    assert load_transcript("default") is DEFAULT_TRANSCRIPT
    path = tmp_path / "t.toml"
    path.write_text('user = "Q: {content}\\n"\ngeneration_prompt = "A:"\nstop = ["\\nQ:"]\n')
    template = load_transcript(str(path))
    assert template.render([Message(role="user", content="2+2?")]) == "Q: 2+2?\nA:"
    assert template.stop == ("\nQ:",)
    assert template.system == DEFAULT_TRANSCRIPT.system


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('usr = "U: {content}"\n', r"t\.toml: unknown key 'usr' \(known keys: assistant, "),
        ('user = "User:"\n', r"t\.toml: key 'user': .*\{content\} exactly once"),
        ("stop = [1]\n", r"t\.toml: key 'stop': "),
        ('user = "a"\nsystem = \n', r"t\.toml: invalid TOML: .*line 2"),
    ],
)
def test_bad_files_name_the_file_and_the_key_or_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=expected):
        load_transcript(str(path))


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml: not found"):
        load_transcript(str(tmp_path / "nope.toml"))


def test_clean_reply_strips_the_label_space_and_the_turn_separator() -> None:
    assert clean_reply(" Paris.\n") == "Paris."
    assert clean_reply("  \n") == ""


def test_a_scored_choice_follows_the_reply_lead() -> None:
    from rulebench.models.transcript import DEFAULT_TRANSCRIPT, TranscriptTemplate

    assert DEFAULT_TRANSCRIPT.reply_lead == " "
    glued = DEFAULT_TRANSCRIPT.model_copy(update={"assistant": "Assistant:{content}\n\n"})
    assert glued.reply_lead == ""
    other = TranscriptTemplate(
        system="S: {content}\n",
        user="Q: {content}\n",
        assistant="A: {content}\n",
        generation_prompt="Bot:",
        stop=("\nQ:",),
    )
    assert other.reply_lead == ""  # the turn does not start with the generation prompt
