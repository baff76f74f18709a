"""A socket while PostgreSQL cannot be reached (a restart, a failover), over a
real daphne on a PostgreSQL database of this test's own, which the test makes
refuse every connection and then accept them again (``ALLOW_CONNECTIONS``;
never the machine's server, never another test's database).

- A message the server cannot handle for want of its database gets the error
  ``unavailable`` and the socket stays open; the same move, sent again once
  the database is back, is played. It used to end the consumer with a
  traceback, and the page reconnected into the same outage.
- A socket that opens meanwhile is told ``unavailable`` and closed with 4503
  (try again later).
- A socket that closes meanwhile takes its seat offline once the database is
  back. Its close used to end the consumer with a traceback, and the seat
  stayed "connected" until its silence showed (40 s).
- Once one command has waited in vain for a connection, one at a time waits
  and the others are answered at once, until one gets through.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg import sql
from websockets.exceptions import ConnectionClosed

from tests.integration import tables
from tests.integration.conftest import servers, shared_env

pytestmark = [pytest.mark.integration, pytest.mark.postgres, pytest.mark.redis]

CLOSE_NOT_WRITTEN = "a closing socket's seat could not be written offline"
DATABASE_AWAY_LINE = "the database is away: one command at a time waits for it"


@pytest.fixture
def own_database(postgres_service):
    """A fresh database on the test PostgreSQL, and a function that lets it
    take connections (True) or refuses them and ends every one it has (False)."""
    name = f"khelaghor_away_{uuid.uuid4().hex[:10]}"
    admin = psycopg.conninfo.make_conninfo(postgres_service, dbname="postgres")
    own = urlsplit(postgres_service)._replace(path=f"/{name}").geturl()
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def allow(connections: bool) -> None:
        with psycopg.connect(admin, autocommit=True) as db:
            db.execute(sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS {}").format(
                sql.Identifier(name), sql.Literal(connections)))
            if not connections:
                db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                           " WHERE datname = %s", (name,))

    yield own, allow
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true").format(
            sql.Identifier(name)))
        db.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


async def test_a_socket_while_the_database_is_away(own_database, redis_service):
    url, allow = own_database
    # A command waits this long for a pooled connection before it is refused
    # (10 s by default): the refusals come sooner, not differently. Turns
    # last ten minutes, so no timeout moves the game while the test waits.
    env = shared_env(url, redis_service, KHELAGHOR_REDIS_PREFIX=f"kh_{uuid.uuid4().hex[:8]}",
                     KHELAGHOR_DB_POOL_TIMEOUT="5", KHELAGHOR_TURN_SECONDS="600")
    with servers(env, 1) as (server,):
        host, guest, _ = await tables.open_table(server.base_url, server.base_url, "snakes", 2)
        await tables.start(host, guest)
        mover = host if host.my_turn() else guest
        leaver = guest if mover is host else host
        leaver_seat = leaver.last["you"]["seat"]
        version, move = mover.version, mover.last["game"]["legal"][0]
        late = tables.signed_in(server.base_url, "Mitu")  # a page about to open
        late_code = late.create_room("snakes", 2)

        allow(False)
        await mover.send({"type": "action", "id": "m1", "version": version, "action": move})
        refused = await mover.wait_for(lambda m: m.get("id") == "m1", 20)
        assert (refused["type"], refused["code"]) == ("error", "unavailable")
        assert "ডেটাবেস" in refused["message"]  # in the page's language, Bengali by default
        # A page that opens now is told so and sent away to retry.
        with pytest.raises(ConnectionClosed) as closed:
            await late.connect(late_code)
        assert closed.value.rcvd.code == 4503
        assert late.errors[-1]["code"] == "unavailable"
        await leaver.close()
        gone = await tables.poll_until(server.log, lambda text: CLOSE_NOT_WRITTEN in text, 20)
        assert CLOSE_NOT_WRITTEN in gone  # its seat could not be written offline

        assert DATABASE_AWAY_LINE in server.log()  # rooms.threads.CommandThreads

        allow(True)
        back = await tables.poll_until(server.log, lambda text: "the database is back" in text, 30)
        assert "the database is back" in back
        # The close is written once the database is back: the seat goes offline.
        offline = await tables.until(
            mover, lambda m: not m["room"]["seats"][leaver_seat]["connected"], 30)
        assert offline["room"]["seats"][mover.last["you"]["seat"]]["connected"]
        # The same socket, the same move sent again: it is played.
        await tables.command(mover, {"type": "action", "version": mover.version, "action": move})
        # Played once: the game's log holds the mover's one roll.
        seat, game_id = mover.last["you"]["seat"], mover.last["game"]["id"]
        (log_of_game,) = tables.move_logs(url, [game_id]).values()
        rolls = [event for _, event, _ in log_of_game if event["type"] == "roll"]
        assert [roll["seat"] for roll in rolls] == [seat]
        await mover.close()
        log = server.log()
    assert "Exception inside application" not in log
    assert "a message could not be handled: the database is away" in log
    # psycopg's pool warned at each try to reconnect and the turn clocks logged
    # a traceback at each beat and sweep; the first of each is kept (config.logfilters).
    assert sum(log.count(f"psycopg.pool: {warning}")
               for warning in ("error connecting in", "reconnection attempt in")) == 1
    assert sum(log.count(f"rooms.ticker: {line}")
               for line in ("database sweep failed", "the turn clocks' beat failed")) <= 1
