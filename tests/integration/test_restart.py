"""A server restart mid-game loses nothing: the database is the truth.

The daphne process is stopped mid-game and a new one started on the same
SQLite file; the clients reconnect, the computer's pending turn is re-armed
from the database, and the game ends with a move log without gaps.
"""

from __future__ import annotations

import sqlite3

import pytest

from games.record import replay
from tests.integration import tables
from tests.integration.conftest import sqlite_env
from tests.servers import free_port, run_daphne

pytestmark = [pytest.mark.integration, pytest.mark.slow]


async def test_a_restart_mid_game_loses_no_move(tmp_path):
    env = sqlite_env(tmp_path)
    with run_daphne(free_port(), env) as first:
        host, guest, code = await tables.open_table(
            first.base_url, first.base_url, "snakes", 3
        )
        await tables.start(host, guest)
        # Play a while by hand: the humans roll, the computer answers by timer.
        while host.version < 25:
            for client in (host, guest):
                if client.my_turn():
                    await tables.pacer(client).wait()
                    await client.send({"type": "action", "version": client.version,
                                       "action": {"type": "roll"}})
            await host.recv()
            while guest.version < host.version:
                await guest.recv()
        seen = host.version
        game_id = host.last["game"]["id"]
    # The first server is gone (terminated); its sockets are closed.
    await tables.close_all(host, guest)

    with run_daphne(free_port(), env) as second:
        for client in (host, guest):
            client.base_url = second.base_url
            snapshot = await client.connect(code)
            assert snapshot["game"]["id"] == game_id
            # Nothing older than what we saw. Equal is fine: a reconnect that finds its
            # seat still present (presence expires on its own) changes nothing.
            assert snapshot["version"] >= seen
        assert (host.seat, guest.seat) == (0, 1)
        host_end, guest_end = await tables.play_out(host, guest)
        assert host_end["game"]["id"] == game_id
        assert sorted(guest_end["game"]["placings"]) == [0, 1, 2]
        record = tables.record_of(host, host_end)
        await tables.close_all(host, guest)

    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        seqs = [seq for (seq,) in db.execute(
            "SELECT seq FROM rooms_movelog WHERE game_id = ? ORDER BY seq", (game_id,))]
    assert seqs == list(range(len(seqs)))
    assert len(record["events"]) == len(seqs)
    checked = replay(record, check_dice=True)
    assert checked.placings == guest_end["game"]["placings"]
    assert checked.dice_checked > 0


async def test_a_stopping_server_writes_its_players_seats_offline_before_it_exits(tmp_path):
    """A deploy stops a server with SIGTERM; daphne cancels its sockets' consumers
    without their disconnect. The seats must not look occupied until the silence
    shows (40 s): by the time the process has exited they are written offline."""
    env = sqlite_env(tmp_path)
    with run_daphne(free_port(), env) as server:
        host, guest, code = await tables.open_table(
            server.base_url, server.base_url, "snakes", 3)
        seats_while_open = _seat_presence(tmp_path, code)
        server.process.terminate()  # SIGTERM, as a deploy sends it
        server.process.wait(timeout=30)
        stopping_log = server.log()
    await tables.close_all(host, guest)

    assert seats_while_open == [(0, 1, False), (1, 1, False)]
    assert _seat_presence(tmp_path, code) == [(0, 0, True), (1, 0, True)], stopping_log
    assert "the server is stopping: 2 of 2 socket(s)' seats written offline" in stopping_log


def _seat_presence(directory, code: str) -> list[tuple[int, int, bool]]:
    """(seat index, open sockets, marked disconnected) of the room's human seats."""
    with sqlite3.connect(directory / "db.sqlite3") as db:
        return [(index, connections, disconnected_at is not None)
                for index, connections, disconnected_at in db.execute(
                    "SELECT s.\"index\", s.connections, s.disconnected_at FROM rooms_seat s"
                    " JOIN rooms_room r ON r.id = s.room_id"
                    " WHERE r.code = ? AND s.kind = 'human' ORDER BY s.\"index\"", (code,))]
