"""Two browsers' worth of clients play whole games over real WebSockets.

Each test runs on both stacks the site supports: one daphne on SQLite with the
in-memory channel layer, and two daphne processes on PostgreSQL + Redis with
the host on one process and the guest on the other.
"""

from __future__ import annotations

import contextlib
import hashlib

import pytest

from games.record import replay
from tests.integration import tables
from tests.integration.conftest import servers, shared_env, sqlite_env

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SHARED = [pytest.mark.redis, pytest.mark.postgres]

# Every change in these tests is one a client or a computer made: a turn here
# outlasts the test, so no timeout can slip between what a test saw and what it
# checks next (e.g. "away and back are the only changes" around a reconnect).
# The timers have their own tests (test_timers.py).
NO_TIMEOUTS = {"KHELAGHOR_TURN_SECONDS": "600"}


@pytest.fixture(scope="module")
def stacks(request, tmp_path_factory):
    """start(mode, bot_delay) -> (host's server, guest's server), started once
    per module and kept for its other tests."""
    started = {}
    with contextlib.ExitStack() as stack:

        def start(mode: str, bot_delay: str):
            key = (mode, bot_delay)
            if key not in started:
                if mode == "sqlite":
                    env = sqlite_env(tmp_path_factory.mktemp("sqlite"),
                                     KHELAGHOR_BOT_DELAY=bot_delay, **NO_TIMEOUTS)
                    (one,) = stack.enter_context(servers(env, 1))
                    started[key] = (one, one)
                else:
                    env = shared_env(request.getfixturevalue("postgres_service"),
                                     request.getfixturevalue("redis_service"),
                                     KHELAGHOR_BOT_DELAY=bot_delay, **NO_TIMEOUTS)
                    started[key] = tuple(stack.enter_context(servers(env, 2)))
            return started[key]

        yield start


# Computers wait 0.05 s at Snakes and Liar's Dice; a Ludo game is hundreds of
# moves (~1600 decisions with five players), so there they answer inside the
# human's own command (delay 0). The hexagonal board is played once, on SQLite.
GAMES = [
    pytest.param("sqlite", "snakes", 3, "0.05", id="sqlite-snakes"),
    pytest.param("sqlite", "liars_dice", 4, "0.05", id="sqlite-liars_dice"),
    pytest.param("sqlite", "ludo", 5, "0", id="sqlite-ludo-hex"),
    pytest.param("shared", "snakes", 3, "0.05", id="shared-snakes", marks=SHARED),
    pytest.param("shared", "liars_dice", 3, "0.05", id="shared-liars_dice", marks=SHARED),
    pytest.param("shared", "ludo", 3, "0", id="shared-ludo-square", marks=SHARED),
]


@pytest.mark.parametrize("mode, game, seats, bot_delay", GAMES)
async def test_two_sessions_play_a_game_to_the_end_and_rematch(
    stacks, mode, game, seats, bot_delay
):
    host_server, guest_server = stacks(mode, bot_delay)
    host, guest, code = await tables.open_table(
        host_server.base_url, guest_server.base_url, game, seats
    )
    try:
        assert (host.seat, guest.seat) == (0, 1)
        kinds = [s["kind"] for s in host.last["room"]["seats"]]
        assert kinds == ["human", "human"] + ["bot"] * (seats - 2)
        # The guest joined over its socket, so its seat shows as connected.
        assert all(s["connected"] for s in host.last["room"]["seats"])
        await tables.start(host, guest)
        first = host.last["game"]
        if game == "ludo":
            assert first["view"]["board"] == ("hex" if seats == 5 else "square")
            assert host.last["room"]["options"]["board"] == first["view"]["board"]

        host_end, guest_end = await tables.play_out(host, guest)

        assert host_end["game"]["id"] == guest_end["game"]["id"] == first["id"]
        placings = host_end["game"]["placings"]
        assert sorted(placings) == list(range(seats))
        assert guest_end["game"]["placings"] == placings
        record = tables.record_of(guest, guest_end)
        checked = replay(record, check_dice=True)
        assert checked.placings == placings
        assert checked.dice_checked and checked.dice_checked > 0
        revealed = bytes.fromhex(record["fairness"]["server_seed"])
        assert hashlib.sha256(revealed).hexdigest() == first["fairness"]["server_seed_hash"]

        assert await tables.start(host, guest) == 2
        second = guest.last["game"]
        assert second["id"] != first["id"]
        assert second["fairness"]["server_seed_hash"] != first["fairness"]["server_seed_hash"]
        assert second["status"] == "in_progress"
        assert [s["kind"] for s in guest.last["room"]["seats"]] == kinds

        for client in (host, guest):
            assert client.errors == [], f"{client.name} was refused: {client.errors}"
            assert tables.version_gaps(client) == [], f"{client.name} missed updates"
    finally:
        # Leave game 2 to the computers: on SQLite it ends on its own; on
        # PostgreSQL stop_games_left_in_progress (tests/fixtures.py) stops it.
        for client in (host, guest):
            if client.ws is not None:
                with contextlib.suppress(Exception):
                    await tables.command(client, {"type": "leave"})
        await tables.close_all(host, guest)


@pytest.mark.parametrize(
    "mode", [pytest.param("sqlite"), pytest.param("shared", marks=SHARED)]
)
async def test_a_reconnect_mid_game_returns_the_same_seat_and_state(stacks, mode):
    """Two humans, no computers: the table waits while the guest is away."""
    host_server, guest_server = stacks(mode, "0.05")
    host, guest, code = await tables.open_table(
        host_server.base_url, guest_server.base_url, "snakes", 2
    )
    try:
        await tables.start(host, guest)
        # A few moves each, so the state is not the opening one.
        for _ in range(4):
            mover = host if host.my_turn() else guest
            version = mover.version
            await tables.pacer(mover).wait()
            await mover.send({"type": "action", "version": version, "action": {"type": "roll"}})
            for client in (host, guest):
                await tables.until(client, lambda m, v=version: m["version"] > v)
        before = guest.last
        await guest.close()
        away = await tables.until(
            host, lambda m: m["room"]["seats"][1]["connected"] is False
        )

        # The guest comes back on the other process in the shared mode.
        guest.base_url = host_server.base_url
        snapshot = await guest.connect(code)

        assert snapshot["you"]["seat"] == before["you"]["seat"] == 1
        assert snapshot["game"]["id"] == before["game"]["id"]
        assert snapshot["game"]["view"] == before["game"]["view"]
        assert snapshot["game"]["legal"] == before["game"]["legal"]
        assert snapshot["game"]["turn"]["seat"] == before["game"]["turn"]["seat"]
        # Away and back are the only changes meanwhile: two versions.
        assert snapshot["version"] == away["version"] + 1 == before["version"] + 2
        back = await tables.until(host, lambda m: m["version"] == snapshot["version"])
        assert back["room"]["seats"][1]["connected"] is True

        host_end, guest_end = await tables.play_out(host, guest)
        assert host_end["game"]["id"] == before["game"]["id"]
        assert sorted(guest_end["game"]["placings"]) == [0, 1]
        assert host.errors == [] and guest.errors == []
    finally:
        await tables.close_all(host, guest)
