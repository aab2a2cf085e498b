"""The batched llamacpp engine's parts that need no model: the prompt cache, sampling."""

import numpy as np

from rulebench.core.messages import GenerateConfig
from rulebench.models.llamacpp.batch_cache import PrefixCache
from rulebench.models.llamacpp.batch_requests import EvalStats
from rulebench.models.llamacpp.batch_seq import sample_token


def test_stats_add_counts_a_request() -> None:
    stats = EvalStats()
    stats.add(100, 30)
    stats.add(50, 50)
    assert (stats.requests, stats.prompt_tokens, stats.evaluated_prompt_tokens) == (2, 150, 80)


# --- the prompt cache --------------------------------------------------------------------------


def test_cache_finds_the_longest_shared_prefix() -> None:
    cache = PrefixCache(budget_bytes=1000)
    assert cache.longest([1, 2, 3]) is None
    cache.put([1, 2, 3, 4], b"a")
    cache.put([1, 2, 9, 9, 9], b"b")
    assert cache.longest([1, 2, 3, 7]) == (b"a", 3)
    assert cache.longest([1, 2, 9, 9]) == (b"b", 4)
    assert cache.longest([5]) is None
    assert cache.shared_length([1, 2, 3, 4, 5]) == 4


def test_cache_keeps_the_longer_of_two_prompts_one_extends() -> None:
    cache = PrefixCache(budget_bytes=1000)
    cache.put([1, 2], b"short")
    cache.put([1, 2, 3], b"long")
    assert len(cache) == 1 and cache.longest([1, 2]) == (b"long", 2)
    cache.put([1, 2], b"again")  # covered: nothing new is stored
    assert len(cache) == 1 and cache.size_bytes == len(b"long")


def test_cache_drops_the_least_recently_used_past_its_budget() -> None:
    cache = PrefixCache(budget_bytes=10)
    cache.put([1, 1, 1], b"xxxx")
    cache.put([2, 2], b"yyyy")  # token arrays of other lengths: entries are never compared
    cache.longest([1, 1])  # touch the first
    cache.put([3, 3, 3, 3], b"zzzz")
    assert cache.size_bytes <= 10 and len(cache) == 2
    assert cache.longest([2, 2]) is None
    assert cache.longest([1, 1, 1]) == (b"xxxx", 3) and cache.longest([3]) == (b"zzzz", 1)


def test_cache_refuses_what_exceeds_its_budget() -> None:
    cache = PrefixCache(budget_bytes=3)
    cache.put([1, 2], b"four")
    assert len(cache) == 0 and cache.longest([1, 2]) is None


# --- sampling ----------------------------------------------------------------------------------


def test_greedy_sampling_takes_the_most_likely_token() -> None:
    logits = np.array([0.5, 3.0, 2.9, -1.0], dtype=np.float32)
    assert sample_token(logits, GenerateConfig(), None) == 1
    rng = np.random.default_rng(0)
    assert sample_token(logits, GenerateConfig(temperature=0.0), rng) == 1


def test_sampling_reproduces_per_seed_and_stays_in_the_nucleus() -> None:
    logits = np.log(np.array([0.5, 0.3, 0.15, 0.05], dtype=np.float32))
    config = GenerateConfig(temperature=1.0, top_p=0.8, seed=3)

    def draws(seed: int) -> list[int]:
        rng = np.random.default_rng(seed)
        return [sample_token(logits, config, rng) for _ in range(200)]

    first = draws(3)
    assert first == draws(3)
    assert set(first) == {0, 1}  # 0.5 + 0.3 reach top_p=0.8; tokens 2 and 3 are cut
    assert 0.5 < first.count(0) / len(first) < 0.75  # 0.5 / 0.8 = 0.625 expected
    assert first != draws(4)


def test_tiny_top_p_samples_only_the_top_token() -> None:
    logits = np.array([1.0, 1.5, 0.2], dtype=np.float32)
    rng = np.random.default_rng(1)
    config = GenerateConfig(temperature=2.0, top_p=0.01)
    assert {sample_token(logits, config, rng) for _ in range(50)} == {1}
