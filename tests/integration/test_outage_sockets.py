"""Sockets and pages that open and close while Redis is away, over a real
daphne on PostgreSQL and a private Redis that the test stops and starts (never
the machine's own): phones keep coming and going during a Redis restart.

- A page closed during the outage releases its seat at once: its consumer
  used to raise out of leaving the room's group, before the seat's release,
  and the player stayed "connected" until the seat's silence showed.
- A page that opens during the outage is turned away without a traceback in
  the server's log (it retries with its backoff), and once Redis is back it
  gets its seat and its snapshot.
- The doors that take a room code (the room's page, its share link, its API)
  answer while Redis is away: their guessing limit counts in the process
  meanwhile (config.ratelimit.Counters), and still refuses a guesser. They
  answered 500 before, so a table could not be reached for the length of a
  restart.
- A table whose sockets are on one server (as the recommended proxy routes a
  room) plays on live: each update goes straight to that process's sockets
  when it cannot be published. It froze until Redis was back before.
"""

from __future__ import annotations

import asyncio
import time
import urllib.error

import psycopg
import pytest
from websockets.exceptions import InvalidStatus

from rooms.guessing import SESSION_MISSES
from tests.integration import tables
from tests.integration.conftest import servers, shared_env

pytestmark = [pytest.mark.integration, pytest.mark.redis, pytest.mark.postgres]

RELEASED_WITHIN = 10.0  # seconds; the silence rule would take 40


def one_server(postgres_url: str, redis, name: str):
    """One daphne on PostgreSQL and ``redis`` (the private one), its channels
    named apart. Turns last ten minutes: no timer acts while a test does."""
    env = shared_env(postgres_url, redis.url, KHELAGHOR_TURN_SECONDS="600",
                     KHELAGHOR_REDIS_PREFIX=f"kh_{name}_{redis.port}")
    return servers(env, 1)


def seats(postgres_url: str, code: str) -> list[tuple[int, bool]]:
    """(connections, disconnected_at is set) of each seat of the room, in order."""
    with psycopg.connect(postgres_url) as db:
        return db.execute(
            "SELECT s.connections, s.disconnected_at IS NOT NULL FROM rooms_seat s"
            " JOIN rooms_room r ON r.id = s.room_id WHERE r.code = %s ORDER BY s.index",
            (code,)).fetchall()


async def test_sockets_closed_and_opened_while_redis_is_away(
    postgres_service, private_redis
):
    with one_server(postgres_service, private_redis, "sockets") as (server,):
        host = tables.signed_in(server.base_url, "Tanvir")
        code = host.create_room("ludo", 2)
        await host.connect(code)
        assert seats(postgres_service, code) == [(1, False), (0, False)]

        private_redis.stop()
        # The host's phone closes the page: the last socket of the room in
        # this process, so leaving its group needs Redis.
        await host.close()
        released = await tables.poll_until(lambda: seats(postgres_service, code),
                               lambda found: found[0] == (0, True), RELEASED_WITHIN)
        assert released[0] == (0, True)

        # Meanwhile another page opens: turned away, to retry.
        with pytest.raises(InvalidStatus) as refused:
            await host.connect(code)
        assert refused.value.response.status_code == 403
        assert seats(postgres_service, code)[0] == (0, True)

        private_redis.start()
        snapshot = None
        deadline = time.monotonic() + 15
        while snapshot is None:
            try:
                snapshot = await host.connect(code)
            except InvalidStatus:  # the layer reconnects to Redis on its own time
                assert time.monotonic() < deadline, "no socket got in after Redis came back"
                await asyncio.sleep(0.5)  # the page's backoff, bounded by the deadline
        assert snapshot["you"]["seat"] == 0
        assert seats(postgres_service, code)[0][0] == 1
        await host.close()
        log = server.log()
    assert "Exception inside application" not in log
    assert "turned away: the channel layer's Redis is away" in log
    assert "could not leave its group: Redis is away" in log


def status_of(client: tables.RoomClient, path: str) -> int:
    """The HTTP status of a GET of ``path`` with the client's session."""
    try:
        return client._get(path)[0]
    except urllib.error.HTTPError as refused:
        return refused.code


async def test_the_doors_that_take_a_code_open_while_redis_is_away(
    postgres_service, private_redis
):
    with one_server(postgres_service, private_redis, "doors") as (server,):
        host = tables.signed_in(server.base_url, "Tanvir")
        code = host.create_room("snakes", 2)
        private_redis.stop()

        friend = tables.signed_in(server.base_url, "Rumi")
        assert status_of(friend, f"/r/{code}/") == 200  # the share link
        assert status_of(friend, f"/api/rooms/{code}/") == 200
        assert status_of(host, f"/r/{code}/") == 200
        # A guesser is still refused, counted in this process meanwhile.
        guesser = tables.signed_in(server.base_url, "Guesser")
        unknown = [f"QZ{chr(65 + n // 26)}{chr(65 + n % 26)}" for n in range(SESSION_MISSES + 1)]
        unknown = [guess for guess in unknown if guess != code][:SESSION_MISSES + 1]
        misses = [status_of(guesser, f"/r/{guess}/") for guess in unknown[:-1]]
        assert set(misses) == {404}
        assert status_of(guesser, f"/r/{unknown[-1]}/") == 429
        assert status_of(friend, f"/r/{code}/") == 200  # others are not
        log = server.log()
    assert "Internal Server Error" not in log
    assert "rate limits count in this process" in log


async def test_a_table_on_one_server_plays_on_live_while_redis_is_away(
    postgres_service, private_redis
):
    """Both players' sockets on one server, as the recommended proxy routes a
    room (docs/deploy.md): while Redis is away, each move still reaches both
    at once, from the process that made it, and so does a reaction."""
    with one_server(postgres_service, private_redis, "live") as (server,):
        host, guest, _ = await tables.open_table(server.base_url, server.base_url, "snakes", 2)
        await tables.start(host, guest)
        private_redis.stop()

        for _ in range(4):  # four moves, by whoever's turn it is (a 6 rolls again)
            mover = next(c for c in (host, guest) if c.my_turn())
            other = guest if mover is host else host
            version = mover.version
            await tables.command(mover, {"type": "action", "version": version,
                                         "action": mover.last["game"]["legal"][0]})
            for client in (mover, other):
                heard = await tables.until(client, lambda m, v=version: m["version"] > v)
                assert heard["version"] == version + 1  # live, not a later snapshot
        await tables.command(host, {"type": "react", "reaction": "clap"})
        reaction = await guest.wait_for(lambda m: m["type"] == "reaction")
        assert reaction["reaction"] == "clap"
        await tables.close_all(host, guest)
        log = server.log()
    assert "a room's update went to the 2 socket(s) of this process only" in log


async def test_a_table_on_one_server_hears_its_computers_while_redis_is_away(
    postgres_service, private_redis
):
    """Two servers; both players' sockets on the first, as the recommended
    proxy routes a room, and two computers at the table. While Redis is away
    every process sweeps the database for due deadlines, and a computer's move
    made by the second server reached its sockets only: none. The players
    heard nothing, and timed out, until Redis was back (an operator's drill).
    Now only the process that hears a room fires its deadlines at once; the
    grace for the others is set beyond the test here, so a move the far
    server made would show as a gap in the versions the players hear."""
    env = shared_env(postgres_service, private_redis.url, KHELAGHOR_TURN_SECONDS="600",
                     KHELAGHOR_OUTAGE_ELSEWHERE_GRACE="600",
                     KHELAGHOR_REDIS_PREFIX=f"kh_near_{private_redis.port}")
    with servers(env, 2) as (near, _far):
        host, guest, _ = await tables.open_table(near.base_url, near.base_url, "snakes", 4)
        await tables.start(host, guest)
        private_redis.stop()
        outage_began = {client.name: len(client.frames) for client in (host, guest)}

        async def both_at_the_latest() -> None:
            latest = max(host.version, guest.version)
            for client in (host, guest):
                await tables.until(client, lambda m, v=latest: m["version"] >= v, timeout=30)

        computer_moves = 0
        while computer_moves < 4:  # whole rounds: each human's move, then the computers'
            await both_at_the_latest()
            mover = next((c for c in (host, guest) if c.my_turn()), None)
            if mover is None:  # the computers are playing: their moves come live
                before = host.version
                await tables.until(host, lambda m, v=before: m["version"] > v, timeout=30)
                computer_moves += 1
                continue
            version = mover.version
            await tables.command(mover, {"type": "action", "version": version,
                                         "action": mover.last["game"]["legal"][0]})
            await tables.until(mover, lambda m, v=version: m["version"] > v)
        await both_at_the_latest()
        for client in (host, guest):
            heard = [f["version"] for f in client.frames[outage_began[client.name]:]
                     if f["type"] == "update"]
            assert heard, f"{client.name} heard nothing while Redis was away"
            assert heard == list(range(heard[0], heard[0] + len(heard))), (
                f"{client.name} missed updates: {heard}")
        await tables.close_all(host, guest)
        log = near.log()
    assert "a room's update went to the 2 socket(s) of this process only" in log
