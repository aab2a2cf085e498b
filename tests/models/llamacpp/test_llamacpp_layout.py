"""The llamacpp engine's layout: lanes, sequences and threads from the settings and the work."""

import pytest

from rulebench.models.llamacpp.layout import (
    KV_BUDGET_BYTES,
    KV_BUDGET_IN_FLIGHT_BYTES,
    MAX_AUTO_SEQUENCES,
    MAX_SEQUENCES,
    SEQUENCES_PER_LANE,
    Layout,
    LayoutRequest,
    choose_layout,
)

EMBEDDED_KV_BYTES = 30 * 2 * 3 * 64 * 2
"""SmolLM2-135M: 30 layers, keys and values of 3 heads x 64 dimensions in f16."""
SEVEN_B_KV_BYTES = 32 * 2 * 32 * 128 * 2
"""A 7B model without grouped-query attention: 512 KiB a token."""


def shape(**fields: int | None) -> tuple[int, int, int, int]:
    given = {"n_ctx": 4096, "kv_bytes_per_token": EMBEDDED_KV_BYTES, "cpus": 2} | fields
    layout = choose_layout(LayoutRequest(**given))  # type: ignore[arg-type]
    return layout.lanes, layout.sequences, layout.threads, layout.threads_batch


# --- prompts in flight not known (the library called directly): the old rule ----------------


def test_unknown_work_gets_two_one_thread_lanes_sized_by_the_kv_budget() -> None:
    fitting = KV_BUDGET_BYTES // (4096 * EMBEDDED_KV_BYTES)
    assert 2 <= fitting < MAX_AUTO_SEQUENCES
    assert shape() == (2, fitting // 2, 1, 1)
    assert shape(cpus=16) == (2, fitting // 2, 1, 1)
    assert shape(n_ctx=256) == (2, MAX_AUTO_SEQUENCES // 2, 1, 1)
    assert shape(cpus=1) == (1, fitting, 1, 1)


def test_a_model_whose_kv_fills_the_budget_runs_one_sequence() -> None:
    assert shape(kv_bytes_per_token=SEVEN_B_KV_BYTES, cpus=16) == (1, 1, 1, 1)
    assert shape(kv_bytes_per_token=SEVEN_B_KV_BYTES, in_flight=8)[:2] == (1, 1)
    eight_b_gqa = 32 * 2 * 8 * 128 * 2  # 8 key-value heads: 128 KiB a token
    assert shape(kv_bytes_per_token=eight_b_gqa, in_flight=8)[:2] == (1, 3)


def test_settings_given_override_the_choice() -> None:
    assert shape(n_seq_max=3, in_flight=16) == (2, 3, 1, 1)
    assert shape(lanes=3, kv_bytes_per_token=SEVEN_B_KV_BYTES, in_flight=1) == (3, 1, 1, 1)
    assert shape(lanes=1, n_seq_max=1, cpus=8) == (1, 1, 1, 1)
    assert shape(n_threads=1, in_flight=4) == (2, 2, 1, 1)  # n_threads=1: the shared-machine rule


# --- prompts in flight known (a run) ---------------------------------------------------------


@pytest.mark.parametrize("in_flight", [1, 2, 4, 2 * SEQUENCES_PER_LANE - 1])
def test_few_prompts_share_one_lane_on_every_core(in_flight: int) -> None:
    assert shape(n_ctx=512, in_flight=in_flight) == (1, in_flight, 2, 2)
    assert shape(n_ctx=512, in_flight=in_flight, cpus=4) == (1, in_flight, 4, 4)


@pytest.mark.parametrize("in_flight", [2 * SEQUENCES_PER_LANE, 16])
def test_many_prompts_get_a_lane_per_core(in_flight: int) -> None:
    assert shape(n_ctx=512, in_flight=in_flight) == (2, in_flight // 2, 1, 1)


def test_lanes_that_cannot_each_fill_get_the_cores_shared_out() -> None:
    assert shape(n_ctx=512, in_flight=12, cpus=8) == (3, 4, 2, 2)
    assert shape(n_ctx=512, in_flight=32, cpus=8) == (8, 4, 1, 1)


def test_the_kv_budget_and_the_cap_bound_the_sequences() -> None:
    fitting = KV_BUDGET_IN_FLIGHT_BYTES // (4096 * EMBEDDED_KV_BYTES)
    assert fitting >= 16  # a default run of 16 in flight gets a sequence each
    assert shape(in_flight=16) == (2, 8, 1, 1)
    lanes, per_lane, _, _ = shape(in_flight=500)
    assert lanes * per_lane in (fitting, fitting + 1)  # the budget, split into equal lanes
    lanes, per_lane, _, _ = shape(n_ctx=256, in_flight=500)
    assert lanes * per_lane == MAX_SEQUENCES


def test_one_core_never_gets_more_lanes_or_threads() -> None:
    assert shape(n_ctx=512, in_flight=16, cpus=1) == (1, 16, 1, 1)


def test_prompt_threads_may_be_set_alone() -> None:
    assert shape(n_ctx=512, in_flight=2, n_threads_batch=1) == (1, 2, 2, 1)


def test_the_choice_says_why_in_one_line() -> None:
    layout = choose_layout(LayoutRequest(512, EMBEDDED_KV_BYTES, 2, in_flight=4))
    assert layout == Layout(1, 4, 2, 2, layout.why)
    assert layout.describe().startswith("llamacpp: 1 lane(s) x 4 sequence(s), 2 thread(s) each (")
    assert "4 prompt(s) in flight" in layout.describe()
