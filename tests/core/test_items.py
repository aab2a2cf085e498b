from hypothesis import given
from hypothesis import strategies as st
from pydantic import JsonValue

from rulebench.core.items import ItemIds, content_hash
from rulebench.core.messages import Message, merge_system_message

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(json_values)
def test_content_hash_is_stable_and_ignores_key_order(value: JsonValue) -> None:
    assert content_hash(value) == content_hash(value)
    if isinstance(value, dict):
        assert content_hash(dict(reversed(list(value.items())))) == content_hash(value)


def test_item_ids_number_exact_duplicates_and_repeats() -> None:
    ids = ItemIds()
    first, second, other = ids({"q": "a"}), ids({"q": "a"}), ids({"q": "b"})
    assert len({first, second, other}) == 3
    assert first == content_hash({"q": "a"})
    # A fresh assigner over the same records in the same order gives the same ids.
    again = ItemIds()
    assert [again({"q": "a"}), again({"q": "a"})] == [first, second]
    assert ItemIds()({"q": "a"}, repeat=1) != first


def test_ids_do_not_depend_on_position() -> None:
    forward, backward = ItemIds(), ItemIds()
    a, b = forward("x"), forward("y")
    b2, a2 = backward("y"), backward("x")
    assert (a, b) == (a2, b2)


def test_merge_system_message_folds_into_first_user_turn() -> None:
    messages = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Hi"),
        Message(role="assistant", content="Hello"),
        Message(role="user", content="Bye"),
    ]
    merged = merge_system_message(messages)
    assert [m.role for m in merged] == ["user", "assistant", "user"]
    assert merged[0].content == "Be brief.\n\nHi"
    assert merged[2].content == "Bye"


def test_merge_system_message_drops_empty_system_and_handles_no_user() -> None:
    assert merge_system_message(
        [Message(role="system", content=""), Message(role="user", content="x")]
    ) == [Message(role="user", content="x")]
    assert merge_system_message([Message(role="system", content="s")]) == [
        Message(role="user", content="s")
    ]
