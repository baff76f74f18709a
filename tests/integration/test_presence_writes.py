"""Presence marks from many sockets are written in one statement, in one
round trip with its ``BEGIN`` and ``COMMIT``, and give way to a command that
holds a seat row (``rooms.rows.mark_seen``, ``rooms.seen``). Checked in a
process of its own on a real PostgreSQL, as a server runs."""

from __future__ import annotations

import pytest

from tests.integration.conftest import run_probe

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def result(postgres_service):
    return run_probe("presence_probe", postgres_service)


def test_one_write_renews_exactly_the_marked_seats_of_open_rooms(result):
    # [host, guest] of the first room, the second, and a closed one.
    assert result["renewed"] == [[True, False], [False, True], [False, False]]
    assert result["sent"] == []  # BEGIN and COMMIT travelled with the UPDATE


def test_a_write_that_meets_a_held_seat_gives_way_and_writes_nothing(result):
    assert result["held_write"] == "LockNotAvailable"
    assert result["renewed_while_held"] == [[False, False], [False, False], [False, False]]
    assert result["renewed_after"] == [[False, True], [True, False], [False, False]]
