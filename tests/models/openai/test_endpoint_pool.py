"""The choice among replicas: least-loaded, round robin on ties, cool-downs, one probe at a time."""

import logging

import pytest

from rulebench.models.openai.endpoint import Endpoint
from rulebench.models.openai.endpoint_pool import EndpointPool, Replica

from tests.models.fake_clock import FakeClock


def replicas(count: int) -> list[Replica]:
    return [
        Replica(
            Endpoint(
                provider="openai-api",
                name="mock/m",
                model="m",
                base_url=f"http://127.0.0.1:{8000 + i}/v1",
            ),
            "/chat/completions",
            None,
        )
        for i in range(count)
    ]


def ports(chosen: list[Replica]) -> list[int]:
    return [int(r.shown_url.split(":")[2].split("/")[0]) - 8000 for r in chosen]


async def test_ties_go_round_robin_and_load_decides_otherwise() -> None:
    pool = EndpointPool(replicas(3), clock=FakeClock())
    first = [await pool.acquire() for _ in range(6)]
    assert ports(first) == [0, 1, 2, 0, 1, 2]  # equal load: each in turn
    pool.release(first[0])
    pool.release(first[3])  # replica 0 is idle, 1 and 2 carry two requests each
    assert ports([await pool.acquire() for _ in range(2)]) == [0, 0]
    assert [r.in_flight for r in pool.replicas] == [2, 2, 2]


async def test_the_least_loaded_replica_is_chosen() -> None:
    pool = EndpointPool(replicas(3), clock=FakeClock())
    pool.replicas[0].in_flight = 5
    pool.replicas[1].in_flight = 1
    pool.replicas[2].in_flight = 3
    assert ports([await pool.acquire()]) == [1]


async def test_a_failed_replica_cools_down_then_one_probe_brings_it_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    pool = EndpointPool(replicas(2), cooldown_s=2.0, max_cooldown_s=5.0, clock=clock)
    dead, alive = pool.replicas
    with caplog.at_level(logging.WARNING, logger="rulebench.models.openai.endpoint_pool"):
        pool.failed(dead, "connection error: Connection refused")
    assert "endpoint http://127.0.0.1:8000/v1 taken out for 2 s" in caplog.text
    chosen = [await pool.acquire() for _ in range(3)]
    assert all(r is alive for r in chosen)  # out: nothing goes there
    clock.advance(2.0)
    probe = await pool.acquire()
    assert probe is dead  # due back, and least loaded
    assert await pool.acquire() is alive  # only one probe at a time
    pool.release(probe)
    pool.failed(probe, "connection error")  # the probe fails: out again, twice as long
    assert dead.out_until == clock.now() + 4.0
    clock.advance(4.0)
    probe = await pool.acquire()
    pool.release(probe)
    pool.failed(probe, "connection error")
    assert dead.out_until == clock.now() + 5.0  # capped
    clock.advance(5.0)
    probe = await pool.acquire()
    pool.release(probe)
    pool.succeeded(probe)
    assert dead.out_until is None and dead.cooldown_s == 2.0


async def test_failures_of_requests_sent_before_the_outage_do_not_lengthen_it() -> None:
    clock = FakeClock()
    pool = EndpointPool(replicas(2), cooldown_s=2.0, clock=clock)
    replica = pool.replicas[0]
    for _ in range(5):  # five requests in flight when the server died
        pool.failed(replica, "connection error")
    assert replica.out_until == clock.now() + 2.0
    assert replica.cooldown_s == 4.0


async def test_retry_after_lengthens_the_cool_down() -> None:
    clock = FakeClock()
    pool = EndpointPool(replicas(2), cooldown_s=2.0, clock=clock)
    pool.failed(pool.replicas[1], "429 Too Many Requests", retry_after_s=7.0)
    assert pool.replicas[1].out_until == clock.now() + 7.0


async def test_when_every_replica_is_out_acquire_waits_for_the_earliest() -> None:
    clock = FakeClock()
    pool = EndpointPool(replicas(2), cooldown_s=2.0, clock=clock)
    start = clock.now()
    pool.failed(pool.replicas[0], "503")
    clock.advance(1.0)
    pool.failed(pool.replicas[1], "503")
    chosen = await pool.acquire()
    assert chosen is pool.replicas[0]
    assert clock.now() - start == pytest.approx(2.0)
    assert max(clock.slept) <= 0.5  # waits in short steps: a success elsewhere shows at once


async def test_the_replica_to_avoid_is_chosen_only_when_alone() -> None:
    pool = EndpointPool(replicas(2), clock=FakeClock())
    first, second = pool.replicas
    second.in_flight = 10
    assert await pool.acquire(avoid=first) is second
    pool.failed(second, "503")
    assert await pool.acquire(avoid=first) is first
