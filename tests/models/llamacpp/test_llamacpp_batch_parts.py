"""The batched llamacpp engine's parts that need no model: sizing, the prompt cache, sampling."""

from pathlib import Path

import numpy as np

from rulebench.core.messages import GenerateConfig
from rulebench.models.llamacpp.batch_cache import PrefixCache
from rulebench.models.llamacpp.batch_requests import EvalStats, LlamaSettings
from rulebench.models.llamacpp.batch_seq import sample_token
from rulebench.models.llamacpp.engine import KV_BUDGET_BYTES, MAX_AUTO_SEQUENCES, plan_lanes

EMBEDDED_KV_BYTES = 30 * 2 * 3 * 64 * 2
"""SmolLM2-135M: 30 layers, keys and values of 3 heads x 64 dimensions in f16."""


def settings(**fields: int | None) -> LlamaSettings:
    base = {"n_ctx": 4096, "n_threads": 1, "n_threads_batch": 1, "n_batch": 512}
    return LlamaSettings(path=Path("m.gguf"), **{**base, **fields})


# --- sizing ------------------------------------------------------------------------------------


def test_the_kv_budget_sizes_the_sequences_split_across_two_lanes() -> None:
    fitting = KV_BUDGET_BYTES // (4096 * EMBEDDED_KV_BYTES)
    assert 2 <= fitting < MAX_AUTO_SEQUENCES
    assert plan_lanes(settings(), EMBEDDED_KV_BYTES, cpus=2) == (2, fitting // 2)
    assert plan_lanes(settings(), EMBEDDED_KV_BYTES, cpus=16) == (2, fitting // 2)
    assert plan_lanes(settings(n_ctx=256), EMBEDDED_KV_BYTES, cpus=2) == (2, 4)


def test_one_core_gets_one_lane_of_all_sequences() -> None:
    fitting = KV_BUDGET_BYTES // (4096 * EMBEDDED_KV_BYTES)
    assert plan_lanes(settings(), EMBEDDED_KV_BYTES, cpus=1) == (1, fitting)


def test_a_model_whose_kv_fills_the_budget_runs_one_sequence() -> None:
    seven_b = 32 * 2 * 32 * 128 * 2  # no grouped-query attention: 512 KiB a token
    assert plan_lanes(settings(), seven_b, cpus=16) == (1, 1)


def test_settings_given_override_the_sizing() -> None:
    assert plan_lanes(settings(n_seq_max=3), EMBEDDED_KV_BYTES, cpus=2) == (2, 3)
    assert plan_lanes(settings(lanes=3), 32 * 2 * 32 * 128 * 2, cpus=2) == (3, 1)
    assert plan_lanes(settings(lanes=1, n_seq_max=1), EMBEDDED_KV_BYTES, cpus=8) == (1, 1)


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
