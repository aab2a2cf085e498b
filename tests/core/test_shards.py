import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.errors import ConfigError
from rulebench.core.shards import Shard, parse_shard, shard_of


def test_i_of_n_is_one_based() -> None:
    assert parse_shard("2/4", {}) == Shard(index=2, count=4)
    assert parse_shard(" 1/1 ", {}) == Shard(index=1, count=1)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("0/4", "shard 0 of 4 does not exist"),
        ("5/4", "shard 5 of 4 does not exist"),
        ("x/y", "I must be a whole number"),
        ("2/y", "N must be a whole number"),
        ("1/0", "N must be at least 1"),
        ("3", "expected I/N"),
        ("auto", "neither SLURM_ARRAY_TASK_ID"),
    ],
)
def test_bad_shards_are_one_line(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says) as caught:
        parse_shard(text, {})
    assert "\n" not in str(caught.value)


def test_auto_reads_a_slurm_array_from_its_first_index() -> None:
    env = {"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"}
    assert parse_shard("auto", env) == Shard(index=3, count=4)
    assert parse_shard("auto/4", env) == Shard(index=3, count=4)
    with pytest.raises(ConfigError, match="SLURM_ARRAY_TASK_COUNT is 4, not 8"):
        parse_shard("auto/8", env)


def test_auto_n_reads_a_kubernetes_index_counted_from_zero() -> None:
    assert parse_shard("auto/4", {"JOB_COMPLETION_INDEX": "0"}) == Shard(index=1, count=4)
    with pytest.raises(ConfigError, match="use --shard auto/N"):
        parse_shard("auto", {"JOB_COMPLETION_INDEX": "0"})
    with pytest.raises(ConfigError, match="shard 5 of 4"):
        parse_shard("auto/4", {"JOB_COMPLETION_INDEX": "4"})
    with pytest.raises(ConfigError, match="not a whole number"):
        parse_shard("auto/4", {"JOB_COMPLETION_INDEX": "a"})


@given(st.sets(st.text(min_size=1), max_size=60), st.integers(1, 9), st.randoms())
def test_every_item_lands_in_exactly_one_shard_whatever_the_order(
    ids: set[str], count: int, rng: object
) -> None:
    order = sorted(ids)
    rng.shuffle(order)  # type: ignore[attr-defined]  # hypothesis' Random
    shards = [Shard(index=i, count=count) for i in range(1, count + 1)]
    pieces = [[item_id for item_id in order if shard.holds(item_id)] for shard in shards]
    assert sorted(x for piece in pieces for x in piece) == sorted(ids)
    assert all(shard_of(item_id, count) == shard_of(item_id, count) for item_id in ids)
