"""One contract, every timer backend (the Django sessions-backend pattern):
the in-process heap and the Redis sorted set behave the same. Redis adds leases
and many claimers; those get their own tests."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest

from rooms.timers import CLAIM_TTL_SECONDS, InProcessTimers, RedisTimers, Wakeup


def take(timers, now, limit=200):
    """Claim what is due and acknowledge it, as the ticker does."""
    claims = timers.claim_due(now, limit=limit)
    timers.ack(*(key for key, _ in claims))
    return claims


class TimerContract:
    """Mixed into one test class per backend; ``make_backend`` builds a fresh one."""

    def make_backend(self):
        raise NotImplementedError

    @pytest.fixture
    def timers(self):
        return self.make_backend()

    def test_nothing_is_due_before_its_deadline(self, timers):
        timers.schedule("g:1", 5, 100.0)
        assert take(timers, 99.9) == []

    def test_a_due_deadline_is_claimed_once_with_its_payload(self, timers):
        timers.schedule("g:1", 5, 100.0)
        assert take(timers, 100.0) == [("g:1", 5)]
        timers.ack("g:1")
        assert take(timers, 200.0) == []

    def test_scheduling_again_replaces_the_deadline_and_payload(self, timers):
        timers.schedule("g:1", 5, 100.0)
        timers.schedule("g:1", 6, 150.0)
        assert take(timers, 120.0) == []
        assert take(timers, 150.0) == [("g:1", 6)]

    def test_arming_from_the_event_loop_arms_the_same(self, timers):
        """What a server's moves use (rooms.publish.arm_game)."""
        async def arm():
            await timers.schedule_async("g:1", 5, 100.0)
            await timers.schedule_async("g:1", 6, 150.0)
            await timers.schedule_async("g:2", 3, 120.0)

        asyncio.run(arm())
        assert take(timers, 149.0) == [("g:2", 3)]
        assert take(timers, 150.0) == [("g:1", 6)]

    def test_cancel_forgets(self, timers):
        timers.schedule("g:1", 5, 100.0)
        timers.cancel("g:1")
        assert take(timers, 500.0) == []

    def test_keys_are_independent_and_come_in_deadline_order(self, timers):
        timers.schedule("g:2", 1, 120.0)
        timers.schedule("g:1", 1, 110.0)
        timers.schedule("r:9", 0, 300.0)
        assert [k for k, _ in take(timers, 200.0)] == ["g:1", "g:2"]
        assert take(timers, 300.0) == [("r:9", 0)]

    def test_claims_respect_the_limit(self, timers):
        for i in range(10):
            timers.schedule(f"g:{i}", i, 100.0 + i)
        first = take(timers, 1000.0, limit=4)
        rest = take(timers, 1000.0, limit=100)
        assert len(first) == 4 and len(rest) == 6
        assert {k for k, _ in first} | {k for k, _ in rest} == {f"g:{i}" for i in range(10)}

    def test_next_due_is_the_earliest(self, timers):
        assert timers.next_due() is None
        timers.schedule("g:1", 1, 130.0)
        timers.schedule("g:2", 1, 120.0)
        assert timers.next_due() == 120.0

    def test_a_claim_tells_when_the_next_deadline_falls_due(self, timers):
        """The ticker sleeps until then instead of polling (rooms.ticker)."""
        assert timers.claim_due_and_next(50.0) == ([], None)
        timers.schedule("g:1", 1, 130.0)
        timers.schedule("g:2", 7, 120.0)
        assert timers.claim_due_and_next(100.0) == ([], 120.0)
        claims, next_at = timers.claim_due_and_next(125.0)
        assert claims == [("g:2", 7)]
        # g:1 is next, unless the backend hands the unacknowledged g:2 out again sooner.
        assert next_at is not None and 125.0 < next_at <= 130.0

    def test_the_claim_from_the_event_loop_is_the_same_claim(self, timers):
        """The ticker claims on its event loop (claim_due_and_next_async)."""
        async def claim(now):
            return await timers.claim_due_and_next_async(now)

        assert asyncio.run(claim(50.0)) == ([], None)
        timers.schedule("g:1", 1, 130.0)
        timers.schedule("r:2", 0, 120.0)
        timers.schedule("g:3", 7, 121.0)
        assert asyncio.run(claim(100.0)) == ([], 120.0)
        claims, next_at = asyncio.run(claim(125.0))
        assert claims == [("r:2", 0), ("g:3", 7)]
        timers.ack("r:2", "g:3")
        assert next_at is not None and 125.0 < next_at <= 130.0
        assert asyncio.run(claim(130.0))[0] == [("g:1", 1)]
        timers.ack("g:1")
        assert take(timers, 1000.0) == []  # each was handed out once

    def test_concurrent_claimers_share_the_work_without_duplicates(self, timers):
        for i in range(300):
            timers.schedule(f"g:{i}", i, 100.0)
        claimed: list[tuple[str, int]] = []
        lock = threading.Lock()

        def claimer():
            other = self.twin(timers)
            while batch := take(other, 100.0, limit=7):
                with lock:
                    claimed.extend(batch)

        threads = [threading.Thread(target=claimer) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert sorted(claimed) == sorted((f"g:{i}", i) for i in range(300))

    def twin(self, timers):
        """Another handle on the same timers (another process, for Redis)."""
        return timers


    # ---- action claims (rooms.consumers records them, deadline_fire reads them) ----

    def test_an_action_claim_is_seen_by_every_handle_until_released(self, timers):
        other = self.twin(timers)
        assert other.action_claim(7, "sess") is None
        timers.claim_action(7, "sess", 12, 1000.25)
        assert other.action_claim(7, "sess") == (12, 1000.25)
        assert other.action_claim(7, "someone") is None
        assert other.action_claim(8, "sess") is None
        other.release_action(7, "sess")
        assert timers.action_claim(7, "sess") is None

    def test_a_newer_claim_replaces_the_last_and_the_async_calls_agree(self, timers):
        import asyncio

        async def claim_then_release():
            await timers.claim_action_async(7, "sess", 13, 1001.5)
            seen = timers.action_claim(7, "sess")
            await timers.release_action_async(7, "sess")
            return seen

        timers.claim_action(7, "sess", 12, 1000.0)
        assert asyncio.run(claim_then_release()) == (13, 1001.5)
        assert timers.action_claim(7, "sess") is None


    def test_many_claims_at_once_all_land(self, timers):
        import asyncio

        async def many():
            await asyncio.gather(*(timers.claim_action_async(room, "sess", 1, 10.0)
                                   for room in range(60)))

        asyncio.run(many())
        assert all(timers.action_claim(room, "sess") == (1, 10.0) for room in range(60))


class TestInProcessTimers(TimerContract):
    def make_backend(self):
        return InProcessTimers()


class TestRedisTimers(TimerContract):
    @pytest.fixture
    def timers(self, redis_service):
        self.url = redis_service
        self.prefix = f"test:timers:{uuid.uuid4().hex}"
        backend = RedisTimers(redis_service, prefix=self.prefix)
        yield backend
        backend.clear()
        claims = backend.redis.keys(f"{backend.claim_prefix}:*")
        if claims:
            backend.redis.delete(*claims)

    def test_a_computers_move_fired_here_is_held_later_for_the_others(self, timers,
                                                                        monkeypatch):
        # The process that keeps the room's rows fires the deadline itself; the
        # backend holds it a little later, for another process should this die.
        from datetime import UTC, datetime

        from rooms import publish
        from rooms import timers as timer_module

        monkeypatch.setattr(publish, "get_timer_backend", lambda: timers)
        deadline = datetime.fromtimestamp(1000.0, tz=UTC)
        try:
            publish.arm_game(41, 9, deadline, here=True)
            publish.arm_game(42, 3, deadline)
            assert timer_module.wakeup.due_here(999.9) == []
            assert timer_module.wakeup.due_here(1000.0) == [("g:41", 9)]
            assert timers.claim_due(1000.0) == [("g:42", 3)]
            later = 1000.0 + publish.FIRED_HERE_BACKUP_SECONDS
            assert timers.claim_due(later - 0.01) == []
            assert timers.claim_due(later) == [("g:41", 9)]
        finally:
            timer_module.wakeup.due_here(float("inf"))

    def test_an_action_claim_expires_on_its_own(self, timers):
        timers.claim_action(7, "sess", 12, 1000.0)
        ttl = timers.redis.ttl(timers._claim_key(7, "sess"))
        assert 0 < ttl <= CLAIM_TTL_SECONDS

    def twin(self, timers):
        return RedisTimers(self.url, prefix=self.prefix)

    def test_an_unacked_claim_is_handed_out_again_after_its_lease(self, timers):
        timers.schedule("g:1", 5, 100.0)
        assert timers.claim_due(100.0) == [("g:1", 5)]  # the claimer dies here
        assert timers.claim_due(100.0 + RedisTimers.LEASE_SECONDS - 1) == []
        assert timers.claim_due(100.0 + RedisTimers.LEASE_SECONDS + 1) == [("g:1", 5)]

    def test_a_batch_acked_in_one_call_is_never_handed_out_again(self, timers):
        timers.schedule("g:1", 5, 100.0)
        timers.schedule("g:2", 6, 100.5)
        timers.schedule("g:3", 7, 300.0)
        claimed = timers.claim_due(101.0)
        assert claimed == [("g:1", 5), ("g:2", 6)]
        timers.ack(*(key for key, _ in claimed))  # as the ticker acks a batch
        assert timers.claim_due(101.0 + RedisTimers.LEASE_SECONDS + 1) == []
        assert timers.claim_due(300.0) == [("g:3", 7)]

    def test_a_requeued_lease_never_overrides_a_newer_schedule(self, timers):
        timers.schedule("g:1", 5, 100.0)
        timers.claim_due(100.0)
        timers.schedule("g:1", 6, 500.0)  # the game moved on meanwhile
        assert timers.claim_due(100.0 + RedisTimers.LEASE_SECONDS + 1) == []
        assert timers.claim_due(500.0) == [("g:1", 6)]

    def test_arming_works_after_redis_forgot_its_scripts(self, timers):
        timers.schedule("g:1", 5, 100.0)  # the script is known, the connection kept
        timers.redis.script_flush()  # as after a Redis restart
        timers.schedule("g:2", 6, 101.0)
        timers.schedule("g:3", 7, 102.0)
        assert timers.claim_due(200.0) == [("g:1", 5), ("g:2", 6), ("g:3", 7)]

    def test_claiming_from_the_event_loop_works_after_redis_forgot_its_scripts(self, timers):
        timers.schedule("g:1", 5, 100.0)
        timers.redis.script_flush()  # as after a Redis restart: NOSCRIPT, then sent whole

        async def claim():
            return await timers.claim_due_and_next_async(200.0)

        assert asyncio.run(claim()) == ([("g:1", 5)], 200.0 + RedisTimers.LEASE_SECONDS)

    def test_arming_from_the_event_loop_works_after_redis_forgot_its_scripts(self, timers):
        async def arm():
            await timers.schedule_async("g:1", 5, 100.0)  # the script is known
            timers.redis.script_flush()  # as after a Redis restart
            await timers.schedule_async("g:2", 6, 101.0)  # NOSCRIPT: sent whole
            await timers.schedule_async("g:3", 7, 102.0)  # and known again

        asyncio.run(arm())
        assert timers.claim_due(200.0) == [("g:1", 5), ("g:2", 6), ("g:3", 7)]

    def test_arming_works_after_redis_closed_the_kept_connection(self, timers):
        timers.schedule("g:1", 5, 100.0)
        kept = timers._thread.connection
        kept.send_command("CLIENT", "ID")
        kept_id = kept.read_response()
        timers.redis.client_kill_filter(_id=kept_id)  # as a Redis restart would
        timers.schedule("g:2", 6, 101.0)  # no error: armed on a fresh connection
        assert timers.claim_due(200.0) == [("g:1", 5), ("g:2", 6)]
        timers.schedule("g:3", 7, 300.0)  # and the kept one connects again
        assert timers._thread.connection is kept
        assert ("g:3", 7) in timers.claim_due(300.0)

def test_arming_a_deadline_sooner_than_the_loop_means_to_look_wakes_it():
    wakeup = Wakeup()
    loop = asyncio.new_event_loop()
    try:
        wakeup.loop, wakeup.event = loop, asyncio.Event()
        wakeup.at = 200.0
        wakeup.armed(300.0)  # later than the loop looks anyway
        loop.run_until_complete(asyncio.sleep(0))
        assert not wakeup.event.is_set() and wakeup.earliest_armed == 300.0
        wakeup.armed(150.0)
        loop.run_until_complete(asyncio.sleep(0))
        assert wakeup.event.is_set() and wakeup.at == 150.0
    finally:
        loop.close()


def test_deadlines_fired_here_come_due_in_order_and_wake_the_loop():
    wakeup = Wakeup()
    loop = asyncio.new_event_loop()
    try:
        wakeup.loop, wakeup.event = loop, asyncio.Event()
        wakeup.at = 200.0
        wakeup.fire_here("g:2", 7, 180.0)
        wakeup.fire_here("g:1", 4, 150.0)
        loop.run_until_complete(asyncio.sleep(0))
        assert wakeup.event.is_set() and wakeup.at == 150.0
        assert wakeup.next_here() == 150.0
        assert wakeup.due_here(149.0) == []
        assert wakeup.due_here(190.0) == [("g:1", 4), ("g:2", 7)]
        assert wakeup.next_here() is None and wakeup.due_here(1e9) == []
    finally:
        loop.close()
