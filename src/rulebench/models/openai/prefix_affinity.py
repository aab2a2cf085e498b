"""Which replica holds a request's beginning, so the request reuses that server's prefix cache.

An inference server keeps the prompts it has computed (vLLM and SGLang's prefix cache,
llama.cpp's slots and prompt cache) and computes a new prompt from where the longest kept one
ends. A multi-turn item resends its whole history each turn, and RuleBench items of one
dataset and setting share their instructions and demonstrations: sent to the replica that
computed their beginning, they cost only their new part; sent elsewhere, all of it.

A request's text (roles and contents, as `request_text` joins them) is cut into blocks of
BLOCK_BYTES bytes, and each block's hash covers every block before it, so two requests
share a block's hash exactly when they share the text up to that block's end. The table maps
recent hashes to the replica they were last sent to; a request goes where its longest known
beginning went. The hashes are read from the messages, never written into them: routing
changes no prompt.
"""

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import Generic, TypeVar

from rulebench.core.messages import Message

ReplicaT = TypeVar("ReplicaT")
"""Whatever the pool routes to (`endpoint_pool.Replica`): the table only remembers it."""

BLOCK_BYTES = 256
"""UTF-8 bytes per block (256 characters of English, about 64 tokens): shorter shared
beginnings (a one-line instruction) save little, and each block costs a hash per request and
an entry in the table."""
MAX_KEYS = 65_536
"""Block hashes remembered, least recently used forgotten first: the beginnings of the last
few thousand requests, far more than a run keeps in flight (about 10 MB)."""


def request_text(messages: Sequence[Message]) -> str:
    """The messages as one text: each role and content, ended by characters no text holds.

    A conversation's next turn begins with its earlier request's text, as its prompt does.
    """
    return "".join(f"{message.role}\x01{message.content}\x00" for message in messages)


def prefix_hashes(messages: Sequence[Message]) -> tuple[bytes, ...]:
    """The hash of each whole block of the request's text, each covering the text before it."""
    data = request_text(messages).encode("utf-8", "surrogatepass")
    digest = hashlib.blake2b(digest_size=16)
    view = memoryview(data)
    hashes = []
    for end in range(BLOCK_BYTES, len(data) + 1, BLOCK_BYTES):
        digest.update(view[end - BLOCK_BYTES : end])
        hashes.append(digest.copy().digest())
    return tuple(hashes)


class AffinityTable(Generic[ReplicaT]):
    """The replica each recent block hash was last sent to."""

    def __init__(self, max_keys: int = MAX_KEYS) -> None:
        self._replicas: OrderedDict[bytes, ReplicaT] = OrderedDict()
        self._max_keys = max_keys

    def __len__(self) -> int:
        return len(self._replicas)

    def find(self, hashes: Sequence[bytes]) -> ReplicaT | None:
        """The replica the longest known beginning of these hashes went to, if any."""
        replicas = self._replicas
        for key in reversed(hashes):
            replica = replicas.get(key)
            if replica is not None:
                return replica
        return None

    def remember(self, hashes: Sequence[bytes], replica: ReplicaT) -> None:
        """The request went to `replica`: later requests that begin alike follow it."""
        replicas = self._replicas
        for key in hashes:
            replicas[key] = replica
            replicas.move_to_end(key)
        while len(replicas) > self._max_keys:
            replicas.popitem(last=False)
