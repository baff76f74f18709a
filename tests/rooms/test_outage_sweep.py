"""While Redis is away every process sweeps the database for overdue deadlines
(rooms.ticker), and a room's update reaches only the sockets of the process
that made it. So each process takes at once only the rooms it hears (a socket
of it in the room's group), and the others after KHELAGHOR_OUTAGE_ELSEWHERE_GRACE,
for the room no process hears. The first process to sweep used to take every
room: a table whose sockets were on another server went silent and its
players timed out (an operator's outage drill, two processes).

Which deadlines a sweep fires is read here by recording what it would fire;
firing them is the services' own, tested elsewhere."""

from __future__ import annotations

import pytest
from django.conf import settings

from rooms import clock, fresh, services, ticker
from rooms.models import Game, Room
from tests.room_fixtures import paced_computers, person  # noqa: F401 - a fixture, by name
from tests.rooms.test_action_claims import pending, started_snakes

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("paced_computers")]


@pytest.fixture
def fired(monkeypatch):
    keys: list[str] = []
    monkeypatch.setattr(ticker, "_fire_logged", lambda key, payload: keys.append(key))
    return keys


def playing_room() -> tuple[Room, Game]:
    room, _players = started_snakes()
    return room, pending(room)


def overdue_by(when, seconds: float) -> None:
    clock.advance((when - clock.now()).total_seconds() + seconds)


def test_in_an_outage_a_room_heard_here_is_fired_at_once_and_another_later(fired):
    room, game = playing_room()
    overdue_by(game.deadline, 0.5)
    grace = settings.KHELAGHOR_OUTAGE_ELSEWHERE_GRACE
    assert ticker.sweep(0.0, grace) == 0, "no socket here: the process that has them fires it"
    assert fired == []
    fresh.listening(room.id)
    try:
        assert ticker.sweep(0.0, grace) == 1
        assert fired == [f"g:{game.id}"]
    finally:
        fresh.not_listening(room.id)
    fired.clear()
    overdue_by(game.deadline, grace + 0.5)
    assert ticker.sweep(0.0, grace) == 1, "no process heard it in time: this one fires it"
    assert fired == [f"g:{game.id}"]


def test_the_ordinary_sweep_fires_what_is_overdue_wherever_its_sockets_are(fired):
    _room, game = playing_room()
    overdue_by(game.deadline, ticker.SWEEP_GRACE_SECONDS + 0.5)
    assert ticker.sweep() == 1
    assert fired == [f"g:{game.id}"]


def test_a_quick_play_countdown_is_fired_by_the_process_that_hears_its_room(fired):
    room = Room.objects.get(id=services.play_now(actor=person("Mitu"), game="ludo").id)
    overdue_by(room.autostart_at, 0.5)
    grace = settings.KHELAGHOR_OUTAGE_ELSEWHERE_GRACE
    assert ticker.sweep(0.0, grace) == 0
    fresh.listening(room.id)
    try:
        assert ticker.sweep(0.0, grace) == 1
    finally:
        fresh.not_listening(room.id)
    assert fired == [f"r:{room.id}"]
