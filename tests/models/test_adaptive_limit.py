"""The concurrency a run finds: a simulated server in virtual time, then the asyncio gate."""

import asyncio
import random

import pytest

from rulebench.models.adaptive_limit import AdaptiveGate, ConcurrencyControl, admitted


def serve(
    control: ConcurrencyControl,
    replies: int,
    slots: int,
    refuse_over: int | None = None,
    seed: int = 0,
) -> tuple[float, list[int]]:
    """Send `replies` requests through `control` to a server with `slots` batch slots.

    Continuous batching in virtual time: a request takes 15-25 decode steps, a step costs
    20 ms plus 4 ms per request in the batch, requests beyond the slots wait in the server's
    queue. With `refuse_over`, a request that finds that many in flight is answered 429 at
    once. Returns the virtual wall time and the limit after every reply.
    """
    rng = random.Random(seed)
    now, sent, done, in_flight = 0.0, 0, 0, 0
    batch: list[list[int]] = []  # [steps left, epoch]
    queued: list[int] = []
    limits: list[int] = []
    while done < replies:
        while in_flight < control.limit and sent < replies:
            if refuse_over is not None and in_flight >= refuse_over:
                control.replied(control.epoch, now, overloaded=True)
                break
            sent, in_flight = sent + 1, in_flight + 1
            if len(batch) < slots:
                batch.append([rng.randint(15, 25), control.epoch])
            else:
                queued.append(control.epoch)
        now += 0.020 + 0.004 * len(batch)
        for request in batch:
            request[0] -= 1
        for request in [r for r in batch if r[0] <= 0]:
            batch.remove(request)
            in_flight, done = in_flight - 1, done + 1
            control.replied(request[1], now, overloaded=False)
            limits.append(control.limit)
            if queued:
                batch.append([rng.randint(15, 25), queued.pop(0)])
    return now, limits


def best_fixed_time(replies: int, slots: int) -> float:
    """The fastest wall time any fixed concurrency of a sweep reaches on the same server."""
    return min(
        serve(ConcurrencyControl(c, ceiling=c), replies, slots)[0] for c in (1, 2, 4, 8, 16, 32, 64)
    )


@pytest.mark.parametrize("slots", [4, 16, 64])
def test_a_long_run_reaches_the_best_fixed_concurrency(slots: int) -> None:
    control = ConcurrencyControl(8, ceiling=64)
    wall, limits = serve(control, 2000, slots)
    assert best_fixed_time(2000, slots) / wall >= 0.95
    # Once found, the slots stay filled; past 32 of 64 each doubling gains under 10% here.
    assert min(limits[500:]) >= min(slots, 32)
    assert control.highest <= 64 and control.backoffs == 0


def test_it_climbs_from_the_start_and_stops_at_the_ceiling() -> None:
    control = ConcurrencyControl(2, ceiling=24)
    _, limits = serve(control, 600, slots=256)
    assert max(limits) == 24 and limits[-1] >= 16  # 16 -> 24 gains 9% here: either may hold
    assert control.changes >= 4  # 2 -> 4 -> 8 -> 16 -> 24


def test_a_saturated_server_does_not_draw_the_limit_to_the_ceiling() -> None:
    control = ConcurrencyControl(8, ceiling=256)
    _, limits = serve(control, 1000, slots=4)
    assert max(limits) <= 64


def test_429s_halve_the_limit_and_it_stays_near_what_the_server_takes() -> None:
    control = ConcurrencyControl(32, ceiling=64)
    _, limits = serve(control, 1000, slots=256, refuse_over=12)
    assert control.backoffs >= 1
    assert limits[0] <= 16  # the first refusal halved 32 at once
    assert max(limits[200:]) <= 30


def test_a_burst_of_overloads_from_one_window_halves_once() -> None:
    control = ConcurrencyControl(16, ceiling=64)
    sent_in = control.epoch
    for _ in range(10):  # all sent together, all refused together
        control.replied(sent_in, 1.0, overloaded=True)
    assert control.limit == 8 and control.backoffs == 1
    control.replied(control.epoch, 2.0, overloaded=True)  # a new window's overload counts
    assert control.limit == 4 and control.backoffs == 2


def test_the_start_is_kept_within_one_and_the_ceiling() -> None:
    assert ConcurrencyControl(100, ceiling=64).limit == 64
    assert ConcurrencyControl(0, ceiling=64).limit == 1


def test_the_summary_says_where_it_started_and_ended() -> None:
    control = ConcurrencyControl(8, ceiling=64)
    serve(control, 400, slots=16)
    note = control.summary()
    assert note.startswith(f"adaptive: 8 at the start, {control.limit} at the end")
    assert f"highest {control.highest}, ceiling 64" in note


async def test_the_gate_never_lets_more_than_the_limit_through() -> None:
    control = ConcurrencyControl(3, ceiling=3)
    gate = AdaptiveGate(control)
    in_flight = peak = 0

    async def request() -> None:
        nonlocal in_flight, peak
        async with admitted(gate, lambda exc: False):
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.001)
            in_flight -= 1

    await asyncio.gather(*(request() for _ in range(30)))
    assert peak == 3 and in_flight == 0


async def test_a_cancelled_waiter_gives_its_place_to_the_next() -> None:
    gate = AdaptiveGate(ConcurrencyControl(1, ceiling=1))
    first = await gate.acquire()
    waiting = asyncio.ensure_future(gate.acquire())
    behind = asyncio.ensure_future(gate.acquire())
    await asyncio.sleep(0)
    waiting.cancel()
    gate.release(first, overloaded=False)
    assert await asyncio.wait_for(behind, timeout=5) >= 0
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_an_overload_failure_lowers_the_limit_and_others_do_not() -> None:
    control = ConcurrencyControl(8, ceiling=8)
    gate = AdaptiveGate(control)

    def is_overload(exc: BaseException) -> bool:
        return isinstance(exc, TimeoutError)

    with pytest.raises(ValueError):
        async with admitted(gate, is_overload):
            raise ValueError("a malformed reply")
    assert control.limit == 8
    with pytest.raises(TimeoutError):
        async with admitted(gate, is_overload):
            raise TimeoutError
    assert control.limit == 4 and control.backoffs == 1
