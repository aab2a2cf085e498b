"""Shards: one piece `I/N` of a run split over processes that a cluster's scheduler starts.

Items go to shards by a hash of their content-hash id, so the split depends neither on file
order nor on which process asks, and each item lands in exactly one shard.
"""

import hashlib
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rulebench.core.errors import ConfigError

AUTO = "auto"
"""The spelling that reads the scheduler's index: `auto` (Slurm) or `auto/N` (any)."""
SLURM_ID = "SLURM_ARRAY_TASK_ID"
SLURM_MIN = "SLURM_ARRAY_TASK_MIN"
SLURM_COUNT = "SLURM_ARRAY_TASK_COUNT"
K8S_INDEX = "JOB_COMPLETION_INDEX"
"""A Kubernetes indexed Job's 0-based index; the Job's completions are not in the pod's env."""


class Shard(BaseModel):
    """Which piece of a run this process runs: shard `index` of `count`, counted from 1."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=1)
    count: int = Field(ge=1)

    @model_validator(mode="after")
    def _index_in_range(self) -> "Shard":
        if self.index > self.count:
            raise ValueError(f"shard {self.index} of {self.count} does not exist")
        return self

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, item_id: str) -> bool:
        """Whether the item with this id belongs to this shard."""
        return shard_of(item_id, self.count) == self.index


def shard_of(item_id: str, count: int) -> int:
    """The shard (1-based) of `count` that an item id falls in: uniform, order-free."""
    digest = hashlib.sha256(item_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse_shard(text: str, env: Mapping[str, str]) -> Shard:
    """Read `--shard`: `I/N` (1-based), `auto` (a Slurm array) or `auto/N` (any scheduler).

    `auto` takes the index and count from a Slurm job array (`SLURM_ARRAY_TASK_ID` less
    `SLURM_ARRAY_TASK_MIN`, and `SLURM_ARRAY_TASK_COUNT`). `auto/N` takes the count from the
    text and the index from `JOB_COMPLETION_INDEX` (a Kubernetes indexed Job) or Slurm's.
    `env` is passed in (the CLI gives os.environ) so that this stays free of I/O.

    Raises:
        ConfigError: one line naming the value and what was expected.
    """
    head, sep, tail = text.strip().partition("/")
    if head == AUTO:
        return _from_env(text, env, _number(text, tail, "N") if sep else None)
    if not sep:
        raise ConfigError(f"--shard '{text}': expected I/N (e.g. 2/4), auto or auto/N")
    return _checked(text, _number(text, head, "I"), _number(text, tail, "N"))


def _from_env(text: str, env: Mapping[str, str], count: int | None) -> Shard:
    """The shard a scheduler's variables name; `count` is what `auto/N` gave."""
    if K8S_INDEX in env:
        if count is None:
            raise ConfigError(
                f"--shard {text}: {K8S_INDEX} gives the index but not the count: use "
                "--shard auto/N with N the Job's completions"
            )
        return _checked(text, _env_number(env, K8S_INDEX) + 1, count)
    if SLURM_ID in env:
        offset = _env_number(env, SLURM_ID) - _env_number(env, SLURM_MIN, "0")
        slurm_count = _env_number(env, SLURM_COUNT, str(count) if count else None)
        if count is not None and slurm_count != count:
            raise ConfigError(
                f"--shard {text}: {SLURM_COUNT} is {slurm_count}, not {count}: drop the /N "
                "or make the array that size"
            )
        return _checked(text, offset + 1, slurm_count)
    raise ConfigError(
        f"--shard {text}: neither {SLURM_ID} (a Slurm job array) nor {K8S_INDEX} (a Kubernetes "
        "indexed Job) is set: give the shard as I/N"
    )


def _env_number(env: Mapping[str, str], name: str, default: str | None = None) -> int:
    raw = env.get(name, default)
    if raw is None:
        raise ConfigError(f"--shard auto: {name} is not set (is this a job array?)")
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"--shard auto: {name} is '{raw}', not a whole number") from None


def _number(text: str, part: str, name: str) -> int:
    try:
        return int(part)
    except ValueError:
        raise ConfigError(
            f"--shard '{text}': {name} must be a whole number (expected I/N, e.g. 2/4)"
        ) from None


def _checked(text: str, index: int, count: int) -> Shard:
    """The shard, or one line saying why `text` names none."""
    if count < 1:
        raise ConfigError(f"--shard '{text}': N must be at least 1 (got {count})")
    if not 1 <= index <= count:
        raise ConfigError(
            f"--shard '{text}': shard {index} of {count} does not exist (I counts from 1 to N)"
        )
    return Shard(index=index, count=count)
