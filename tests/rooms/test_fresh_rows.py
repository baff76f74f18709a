"""What a process keeps of a room (rooms.fresh): only while it hears the room,
and never past a broadcast of a newer version. The moves made from kept rows
are tested on PostgreSQL (tests/integration/test_fresh.py)."""

from __future__ import annotations

import pytest

from rooms import fresh
from rooms.models import Game, Room, Seat


def _forget_everything() -> None:
    fresh.forget_all()
    for room_id in list(fresh._listening):
        del fresh._listening[room_id]


@pytest.fixture(autouse=True)
def empty():
    # Before as well as after: an earlier test in this process left room 7
    # "heard" (room ids repeat from test database to test database), and the
    # first assertion below failed in one `make test` of 1,413.
    _forget_everything()
    yield
    _forget_everything()


def rows_at(version: int, room_id: int = 7):
    room = Room(id=room_id, code="ABCD", game="snakes", version=version,
                status=Room.Status.PLAYING, current_game_id=70)
    game = Game(id=70, room_id=room_id, game="snakes", seq=3, options={}, seats=[],
                status=Game.Status.IN_PROGRESS)
    seats = [Seat(id=700 + i, room_id=room_id, index=i) for i in range(2)]
    return room, game, seats


def test_rows_are_kept_only_for_a_room_the_process_hears():
    fresh._keep(*rows_at(5))
    assert fresh._kept == {}
    fresh.listening(7)
    fresh._keep(*rows_at(5))
    assert fresh._kept[7].version == 5
    assert fresh._room_by_code == {"ABCD": 7} and fresh._room_by_game == {70: 7}


def test_a_broadcast_of_a_newer_version_drops_them():
    fresh.listening(7)
    fresh._keep(*rows_at(5))
    fresh.heard(7, 5)  # this process's own broadcast
    assert 7 in fresh._kept
    fresh.heard(7, 6)  # another process moved the room
    assert 7 not in fresh._kept and fresh._room_by_code == {} and fresh._room_by_game == {}


def test_an_older_commit_kept_late_does_not_replace_a_newer_one():
    fresh.listening(7)
    fresh._keep(*rows_at(6))
    fresh._keep(*rows_at(5))  # the other command thread's, kept after
    assert fresh._kept[7].version == 6


def test_the_last_socket_leaving_drops_them():
    fresh.listening(7)
    fresh.listening(7)
    fresh._keep(*rows_at(5))
    fresh.not_listening(7)
    assert 7 in fresh._kept
    fresh.not_listening(7)
    assert 7 not in fresh._kept and 7 not in fresh._listening


def test_an_action_at_another_version_is_not_served_from_them():
    fresh.listening(7)
    fresh._keep(*rows_at(5))
    assert fresh.room_for_action("ABCD", 4) is None
    assert fresh.room_for_action("ABCD", 6) is None
    assert fresh.room_for_action("WXYZ", 5) is None
