"""The ticker fires nothing between a failed beat and the next one made.

When the database comes back after an outage, the first beat may pause every
turn clock for the gap (services.clocks_beat). A deadline that Redis woke in
the moment before fired, set its successor's deadline, and the pause then
moved that one on too: the next player got 42.6 s instead of 15 in an
operator's drill. The claims now wait for the beat. The backend here is a
stand-in that records being asked: only the ticker's own logic is under test."""

from __future__ import annotations

import asyncio

from rooms import ticker
from rooms.timers import Wakeup


class AskedBackend:
    arms_on_loop = True

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def claim_due_and_next_async(self, now: float):
        self.asked.set()
        return [], None


async def test_the_claims_wait_for_a_beat_after_one_failed(monkeypatch):
    backend = AskedBackend()
    monkeypatch.setattr(ticker, "get_timer_backend", lambda: backend)
    # A wake-up of the test's own: the process's holds other tests' computer
    # moves to fire here, which this loop must not take (nor point it at a
    # loop that closes with the test).
    monkeypatch.setattr(ticker, "wakeup", Wakeup())
    health = ticker.Health()
    health.failing = False  # Redis answers; only the beat failed
    health.beating.clear()
    claims = asyncio.create_task(ticker.claim_loop(health))
    try:
        for _ in range(50):  # every step the loop can take without the beat
            await asyncio.sleep(0)
        assert not backend.asked.is_set(), "a deadline was claimed before the beat"
        health.beating.set()  # the beat is made (and has paused the clocks if it must)
        await asyncio.wait_for(backend.asked.wait(), 10)
    finally:
        claims.cancel()
        await asyncio.gather(claims, return_exceptions=True)


def test_a_new_health_lets_the_claims_run():
    """run() makes the first beat before the loops start."""
    assert ticker.Health().beating.is_set()
