"""Per-visitor quotas of a shared playground: counted per visitor and per address, in a window."""

from pathlib import Path

import pytest
from fastapi import FastAPI

from rulebench.web.app import create_app
from rulebench.web.clients import client_address
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.playground.quotas import QuotaExceeded, Quotas, VisitorLimits

from tests.web.explorer_store import synthetic_run
from tests.web.playground_app import MODEL, model_args, model_calls, player, send, start


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now_s = 1000.0

    def __call__(self) -> float:
        return self.now_s


def test_a_visitor_over_its_quota_is_refused_and_another_is_not() -> None:
    limits = VisitorLimits(Quotas(conversations_per_hour=2), Clock())
    limits.check_new_conversation("alice")
    limits.check_new_conversation("alice")
    with pytest.raises(QuotaExceeded, match="2 new conversations an hour per visitor"):
        limits.check_new_conversation("alice")
    limits.check_new_conversation("bob")


def test_the_window_slides() -> None:
    clock = Clock()
    limits = VisitorLimits(Quotas(model_calls_per_minute=3), clock)
    limits.check_model_call("alice", 3)
    with pytest.raises(QuotaExceeded, match="try again in about 1 minute"):
        limits.check_model_call("alice")
    clock.now_s += 61
    limits.check_model_call("alice", 3)


def test_a_refused_request_uses_nothing() -> None:
    limits = VisitorLimits(Quotas(model_calls_per_minute=3), Clock())
    with pytest.raises(QuotaExceeded):
        limits.check_model_call("alice", 4)  # a replay of 4 turns asks for more than allowed
    limits.check_model_call("alice", 3)


def test_an_address_is_limited_across_cookies() -> None:
    limits = VisitorLimits(Quotas(conversations_per_hour=1, visitors_per_address=2), Clock())
    token = client_address.set("10.0.0.7")
    try:
        limits.check_new_conversation("first-cookie")
        limits.check_new_conversation("second-cookie")
        with pytest.raises(QuotaExceeded, match="per client address"):
            limits.check_new_conversation("third-cookie")
    finally:
        client_address.reset(token)
    limits.check_new_conversation("third-cookie")  # from another address


def test_new_files_are_counted_apart_from_saves() -> None:
    limits = VisitorLimits(Quotas(saves_per_hour=5, new_files_per_day=1), Clock())
    limits.check_save("alice", creates_file=True)
    with pytest.raises(QuotaExceeded, match="1 new files in the save folder a day"):
        limits.check_save("alice", creates_file=True)
    limits.check_save("alice", creates_file=False)  # appending to an existing file


def test_unlimited_counts_nothing() -> None:
    limits = VisitorLimits(Quotas.unlimited(), Clock())
    for _ in range(500):
        limits.check_model_call("alice")
        limits.check_new_conversation("alice")


def quota_app(folder: Path, quotas: Quotas) -> FastAPI:
    """The test playground with `quotas`."""
    store = folder / "s.sqlite"
    synthetic_run(store, 3)
    config = PlaygroundConfig(
        save_dir=folder / "cases", model=MODEL, model_args=model_args(folder), quotas=quotas
    )
    return create_app(store, playground=config)


def test_the_playground_refuses_a_game_over_quota_with_429(tmp_path: Path) -> None:
    app = quota_app(tmp_path, Quotas(conversations_per_hour=1))
    with player(app) as alice, player(app) as bob:
        start(alice)
        form = {"scenario": "Encryption", "model": "", "placement": "user", "mode": "compat"}
        refused = alice.post("/play", data=form)
        assert refused.status_code == 429 and "quota reached" in refused.text
        start(bob)


def test_a_turn_over_the_model_call_quota_is_not_sent(tmp_path: Path) -> None:
    app = quota_app(tmp_path, Quotas(model_calls_per_minute=1))
    with player(app) as alice:
        url = start(alice)
        send(alice, url, "Hello")
        refused = alice.post(f"{url}/send", data={"message": "again"})
        assert refused.status_code == 429 and "1 model calls a minute" in refused.text
        assert model_calls(refused.text) == 1


def test_one_piece_of_work_over_a_minute_s_allowance_is_refused_whatever_the_window() -> None:
    limits = VisitorLimits(Quotas(model_calls_per_minute=3), Clock())
    with pytest.raises(QuotaExceeded, match="needs 4 model calls; 3 per minute allowed"):
        limits.check_fits(4)
    limits.check_fits(3)
    VisitorLimits(Quotas.unlimited(), Clock()).check_fits(10_000)


def test_waiting_for_model_calls_takes_them_once_the_window_has_room() -> None:
    clock = Clock()
    limits = VisitorLimits(Quotas(model_calls_per_minute=3), clock)
    assert limits.model_call_wait_s("alice", 2) == 0.0
    wait_s = limits.model_call_wait_s("alice", 2)  # one left: not taken, wait instead
    assert 0.0 < wait_s <= 60.0
    clock.now_s += wait_s
    assert limits.model_call_wait_s("alice", 2) == 0.0
    with pytest.raises(QuotaExceeded):
        limits.check_model_call("alice", 2)  # the two taken after the wait count
