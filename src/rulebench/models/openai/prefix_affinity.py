"""Which replica a conversation went to, so its next turn reuses that server's prefix cache.

A multi-turn item resends its whole history each turn. An inference server keeps the prompt
it has just computed (vLLM and SGLang's prefix cache, llama.cpp's slots and prompt cache), so
the turn that goes back to the replica that served the earlier ones is computed from where
the history ends; sent elsewhere, the whole history is computed again.

The key is the request's own content up to its first user turn: every turn of a conversation
begins with the same system prompt and first user message, and so do the repeats of one test
case. It is read from the messages, never written into them: routing changes no prompt.
"""

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulebench.core.messages import Message

if TYPE_CHECKING:  # the pool holds a table: a runtime import would be circular
    from rulebench.models.openai.endpoint_pool import Replica

MAX_KEYS = 65_536
"""Conversations remembered, least recently used forgotten first: a 35,000-item grid fits,
at about 200 bytes a key."""


def affinity_key(messages: Sequence[Message]) -> str:
    """The conversation a request belongs to: a hash of its messages through the first user one.

    Roles and contents only (thinking is never sent), each length-prefixed so no two
    different conversations can join into the same bytes.
    """
    digest = hashlib.blake2b(digest_size=16)
    for message in messages:
        content = message.content.encode("utf-8", "surrogatepass")
        digest.update(f"{message.role}:{len(content)}:".encode())
        digest.update(content)
        if message.role == "user":
            break
    return digest.hexdigest()


class AffinityTable:
    """The replica each recent conversation was last sent to."""

    def __init__(self, max_keys: int = MAX_KEYS) -> None:
        self._replicas: OrderedDict[str, Replica] = OrderedDict()
        self._max_keys = max_keys

    def __len__(self) -> int:
        return len(self._replicas)

    def get(self, key: str) -> "Replica | None":
        """The replica that served the conversation last, if it is still remembered."""
        return self._replicas.get(key)

    def remember(self, key: str, replica: "Replica") -> None:
        """The conversation's latest request went to `replica`: its next ones follow."""
        replicas = self._replicas
        replicas[key] = replica
        replicas.move_to_end(key)
        if len(replicas) > self._max_keys:
            replicas.popitem(last=False)
