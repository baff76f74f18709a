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
