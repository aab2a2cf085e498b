"""A synthetic task of any size for load tests and engine benchmarks: "repeat this token".

Items are made lazily, so 50,000 of them cost no memory up front; each asks the model to repeat
a random token and is right when the reply contains it. It measures the plumbing, not a model.
"""

import random
from collections.abc import Iterator, Mapping
from typing import ClassVar

from pydantic import Field, JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.items import Item, Outcome, content_hash
from rulebench.core.messages import Message
from rulebench.engine.task import Session
from rulebench.engine.task_config import GenerationDefaults, TaskConfig


class LoadTestItems:
    """A sized, re-iterable, lazy sequence of items (its length gives progress an ETA)."""

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.seed = seed

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[Item]:
        rng = random.Random(self.seed)
        for index in range(self.n):
            token = f"tok{rng.getrandbits(40):010x}"
            text = f"Repeat exactly this token and nothing else: {token}"
            yield Item(
                # Index is part of the content: tokens could repeat, items must not.
                id=content_hash(["loadtest", self.seed, index, token]),
                messages=(Message(role="user", content=text),),
                target=token,
                metadata={"index": index},
            )


class LoadTestConfig(TaskConfig):
    """How many items, from which seed."""

    n: int = Field(default=1000, ge=1)
    """Items to make; a run's `limit` (`-n/--limit`) sets it."""
    seed: int = 0

    default_concurrency: ClassVar[int] = 64
    """Enough requests in flight to load a server."""
    adapts_concurrency: ClassVar[bool] = False
    """A load test measures the client at the concurrency it names."""

    def generation_defaults(self) -> GenerationDefaults:
        """A repeated token needs a few tokens at most."""
        return GenerationDefaults(max_tokens=16)

    def with_run_settings(self, given: Mapping[str, JsonValue]) -> "LoadTestConfig":
        """A run's limit is how many items to make (the items are made, not picked)."""
        limit = given.get("limit")
        if limit is None:
            return self
        if not isinstance(limit, int) or limit < 1:
            raise ConfigError(f"loadtest: limit {limit!r}: make at least 1 item")
        return self.model_copy(update={"n": limit})


class LoadTestTask:
    """`n` items asking to repeat a token; deterministic from `seed`."""

    name = "loadtest"
    config_type = LoadTestConfig

    def __init__(self, n: int = 1000, seed: int = 0) -> None:
        self.n = n
        self.seed = seed

    def config(self) -> dict[str, JsonValue]:
        """Size and seed define the items."""
        return {"n": self.n, "seed": self.seed}

    def items(self) -> LoadTestItems:
        """The items, made as they are consumed."""
        return LoadTestItems(self.n, self.seed)

    async def solve(self, item: Item, session: Session) -> Outcome:
        """One reply; right when it contains the token."""
        completion = await session.generate(item.messages)
        found = item.target is not None and item.target in completion.text
        return Outcome(answer=item.target if found else None, score=float(found))
