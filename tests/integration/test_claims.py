"""An action read before the deadline beats the timeout, over the wire, on
PostgreSQL + Redis with two daphne processes (docs/protocol.md).

The race is forced, not waited for: the server has one database thread
(KHELAGHOR_DB_THREADS=1), and the test holds another room's row lock while a
command for that room occupies the thread. The player's roll, sent before the
deadline, queues behind it; the deadline passes and the timers come for the
seat: the free process finds the roll's claim and waits, or the blocked one
queues its fire behind the roll (whichever claims the deadline first); only
then is the lock let go. The roll must be applied, with no timeout."""

from __future__ import annotations

import asyncio
import time
import uuid

import psycopg
import pytest
import redis

from tests.integration import tables
from tests.integration.conftest import servers, shared_env

pytestmark = [pytest.mark.integration, pytest.mark.redis, pytest.mark.postgres,
              pytest.mark.slow]

# Long enough that the roll is sent well before the deadline (SEND_MARGIN)
# even on a loaded machine: the server stamps an action when its loop reads
# the frame. With 4 s and 0.5 s this test failed once (stale_version, a
# timeout first) while the machine also ran other test servers (2026-12-03);
# a read that late was suspected then, but the failure seen again on
# 2026-12-06 had another cause (``the_timer_came``).
TURN_SECONDS = 6
SEND_MARGIN = 2.5


async def until_true(predicate, timeout: float, what: str) -> None:
    """Poll a condition on outside state (PostgreSQL, Redis) until it holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)  # polling a condition, bounded by the deadline


def waiting_on_a_lock(db) -> bool:
    row = db.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        " AND query LIKE %s", ("%FOR UPDATE%",)
    ).fetchone()
    return row[0] > 0


async def test_a_roll_queued_past_the_deadline_is_applied_not_timed_out(
    postgres_service, redis_service
):
    prefix = f"kh_claims_{uuid.uuid4().hex[:8]}"  # the servers' timers, read below
    env = shared_env(postgres_service, redis_service,
                     KHELAGHOR_TURN_SECONDS=str(TURN_SECONDS), KHELAGHOR_DB_THREADS="1",
                     KHELAGHOR_BOT_DELAY="0.05", KHELAGHOR_REDIS_PREFIX=prefix)
    with servers(env, 2) as (server, _other):
        host, guest, code = await tables.open_table(
            server.base_url, server.base_url, "snakes", 2, bots=0)
        blocker = tables.signed_in(server.base_url, "Blocker")
        other_code = blocker.create_room("snakes", 2)
        await blocker.connect(other_code)
        await tables.until(blocker, lambda m: True)

        await tables.start(host, guest)
        playing = await tables.until(host, lambda m: (m["game"] or {}).get("turn") is not None)
        turn = playing["game"]["turn"]
        mover = host if turn["seat"] == 0 else guest
        await tables.until(mover, lambda m: m["version"] == playing["version"])
        version, deadline = playing["version"], turn["deadline"]
        game_id = playing["game"]["id"]

        with psycopg.connect(postgres_service) as holder, \
                psycopg.connect(postgres_service, autocommit=True) as watcher:
            holder.execute("SELECT id FROM rooms_room WHERE code = %s FOR UPDATE", (other_code,))
            # The server's one database thread now waits for that lock...
            await blocker.send({"type": "seed", "client_seed": "held", "id": "blocked"})
            await until_true(lambda: waiting_on_a_lock(watcher), 10, "the blocked command")
            # ...and the roll, read before the deadline, queues behind it.
            assert time.time() < deadline - SEND_MARGIN, "the setup ran too near the deadline"
            await mover.send({"type": "action", "version": version, "id": "roll",
                              "action": {"type": "roll"}})
            timers = redis.Redis.from_url(redis_service)
            key = f"g:{game_id}"

            def the_timer_came() -> bool:
                """Past the deadline, a process has taken it: either process
                may, whichever claims it first. The free one fires, finds the
                claim and arms it again a little later (its score passes the
                deadline); the blocked one holds it, leased, in its queue
                behind the roll. Waiting for the first case alone, when the
                blocked process had claimed it, waited for the other's
                database sweep (every 5 s), and the roll's claim (10 s from
                its sending) could expire first: a timeout, then
                stale_version (the failure of 2026-12-06)."""
                if time.time() <= deadline + 0.3:
                    return False
                score = timers.zscore(f"{prefix}:timers:due", key)
                taken = timers.zscore(f"{prefix}:timers:processing", key) is not None
                return taken or (score is not None and score > deadline)

            await until_true(the_timer_came, TURN_SECONDS + 10,
                             "the deadline to pass and the timer to come")
            holder.rollback()  # let the blocked command, then the roll, through

        reply = await mover.wait_for(lambda m: m.get("id") == "roll", 20)
        assert reply["type"] == "ok", reply
        moved = await tables.until(mover, lambda m: m["version"] > version, 20)
        logs = tables.move_logs(postgres_service, [game_id])[game_id]
        first = logs[0][1]
        assert (first["type"], first["seat"]) == ("roll", turn["seat"]), logs[:3]
        assert not any(event["type"] == "timeout" for _, event, _ in logs), logs
        assert moved["game"] is not None
        await tables.close_all(host, guest, blocker)
