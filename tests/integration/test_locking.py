"""A command that waits for a room's lock sees the game as the lock holder
left it (PostgreSQL). A row merely joined to a ``FOR UPDATE`` row keeps the
version the statement first saw; ``rooms.rows.lock_room`` reads the game after
the lock, and this shows both behaviours on a real server."""

from __future__ import annotations

import pytest

from tests.integration.conftest import run_probe

pytestmark = pytest.mark.postgres


def test_a_command_that_waited_for_the_lock_sees_the_game_moved_on(postgres_service):
    result = run_probe("lock_probe", postgres_service)
    ours, joined = result["rows"], result["orm_join"]
    assert ours["waited"] and joined["waited"]
    assert ours["seen"] == ours["before"] + result["moved_on"]
    # The hazard the lean lock avoids: the ORM's one-query lock-with-join
    # returned the game row as it was before the holder's commit.
    assert joined["seen"] == joined["before"]
