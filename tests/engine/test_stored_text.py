"""The texts the engine stores and hashes are built faster than by plain json.dumps, but must be
exactly what json.dumps wrote: stored rows, cache keys and item ids depend on every byte."""

import hashlib
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.items import content_hash
from rulebench.core.messages import GenerateConfig, Message
from rulebench.engine.store.cache import cache_key_parts, make_cache_key
from rulebench.engine.store.records import _dumps, utc_now
from rulebench.models.base import ModelInfo

# Any text, lone surrogates, quotes, backslashes and non-ASCII included.
TEXT = st.text(st.characters(codec=None), max_size=30)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
MESSAGES = st.lists(
    st.builds(Message, role=st.sampled_from(["system", "user", "assistant"]), content=TEXT),
    max_size=4,
)
CONFIGS = st.builds(
    GenerateConfig,
    max_tokens=st.integers(1, 10_000),
    temperature=st.floats(0, 2),
    seed=st.none() | st.integers(0, 2**40),
    stop=st.lists(TEXT, max_size=2).map(tuple),
)


@given(TEXT, TEXT, MESSAGES, CONFIGS, st.integers(0, 2**31))
def test_a_cache_key_is_the_canonical_json_of_its_parts(
    provider: str, identity: str, messages: list[Message], config: GenerateConfig, repeat: int
) -> None:
    info = ModelInfo(provider=provider, name="n", identity=identity)
    expected = json.dumps(
        cache_key_parts(info, messages, config, repeat),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    key = make_cache_key(info, messages, config, repeat)
    assert key.parts_json == expected
    assert key.key == hashlib.sha256(expected.encode("utf-8", "surrogatepass")).hexdigest()


@given(JSON)
def test_a_content_hash_hashes_the_canonical_json(content: object) -> None:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
    assert content_hash(content) == digest[:16]  # type: ignore[arg-type]


@given(JSON)
def test_a_stored_json_column_is_what_json_dumps_writes(value: object) -> None:
    assert _dumps(value) == json.dumps(value, allow_nan=False)


@pytest.mark.parametrize("number", [float("nan"), float("inf")])
def test_a_stored_json_column_refuses_nan_and_infinity(number: float) -> None:
    with pytest.raises(ValueError, match="Out of range float"):
        _dumps({"score": [number]})


def test_a_row_timestamp_is_the_current_second_in_utc() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    stamp = utc_now()
    after = datetime.now(UTC)
    assert before <= datetime.fromisoformat(stamp) <= after
    assert stamp == datetime.fromisoformat(stamp).isoformat(timespec="seconds")
