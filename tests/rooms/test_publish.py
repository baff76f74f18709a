"""The group message of a change (rooms.publish.build_update): each seat's
payload is exactly the message rendered for that seat alone, however the
payloads were produced (one shared render for games where all see the same)."""

from __future__ import annotations

import json

import pytest

from games.registry import get_game
from rooms import publish, services
from rooms.models import Room, Seat
from rooms.selectors import message_for
from rooms.services import Change
from rooms.state import load_state
from tests.room_fixtures import paced_computers, person  # noqa: F401 - a fixture, by name

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("paced_computers")]


def playing(game: str, seats: int) -> Room:
    host = person("Tanvir")
    room = services.room_create(actor=host, game=game, seats=seats)
    services.seat_join(room.code, person("রুমি"))
    for _ in range(seats - 2):
        services.bot_add(room.code, host)
    services.game_start(room.code, host)
    return Room.objects.get(pk=room.pk)


def rendered_one_by_one(room: Room, events) -> dict[str, dict]:
    seats = list(room.seats.order_by("index"))
    game_row = room.current_game
    state = load_state(game_row) if game_row is not None else None
    alone = {str(s.index): message_for("update", room, seats, game_row, state, s.index, events)
             for s in seats if s.kind == Seat.Kind.HUMAN}
    alone["spectator"] = message_for("update", room, seats, game_row, state, None, events)
    return alone


def without_clock(message: dict) -> dict:
    return {k: v for k, v in message.items() if k != "server_time"}


@pytest.mark.parametrize("game,seats", [("snakes", 2), ("ludo", 4), ("liars_dice", 3)])
def test_every_payload_is_the_message_rendered_for_that_seat_alone(game, seats):
    room = playing(game, seats)
    events = [{"type": "started", "game": 1}]
    message = publish.build_update(room, Change(room.id, events))
    alone = rendered_one_by_one(room, events)
    assert set(message["payloads"]) == set(alone)
    for key, payload in message["payloads"].items():
        assert without_clock(json.loads(payload)) == without_clock(alone[key]), key
    turn = alone["spectator"]["game"]["turn"]["seat"]
    if str(turn) in alone:  # the seat to play has its legal actions, the others none
        assert json.loads(message["payloads"][str(turn)])["game"]["legal"]
    assert json.loads(message["payloads"]["spectator"])["game"]["legal"] == []


def test_views_alike_is_declared_only_where_nothing_is_hidden():
    assert get_game("snakes").views_alike and get_game("ludo").views_alike
    assert not get_game("liars_dice").views_alike


def test_a_nickname_cannot_write_into_another_seats_payload():
    room = playing("snakes", 2)
    # Stored directly: nickname rules refuse quotes, but the payloads must not rely on them.
    Seat.objects.filter(room=room, index=1).update(name='"you-"},"legal":["x"]')
    message = publish.build_update(room, Change(room.id, []))
    for key, payload in message["payloads"].items():
        you = json.loads(payload)["you"]
        assert you["seat"] == (None if key == "spectator" else int(key))
    names = [s["name"] for s in json.loads(message["payloads"]["0"])["room"]["seats"]]
    assert names[1] == '"you-"},"legal":["x"]'


def test_a_lobby_without_a_game_gives_each_seat_its_own_you():
    host = person("Tanvir")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, person("Mitu"))
    room = Room.objects.get(pk=room.pk)
    message = publish.build_update(room, Change(room.id, []))
    alone = rendered_one_by_one(room, [])
    for key, payload in message["payloads"].items():
        assert without_clock(json.loads(payload)) == without_clock(alone[key]), key


def test_a_disconnect_is_broadcast_from_the_seats_read_under_the_lock(
        monkeypatch, django_assert_num_queries, django_capture_on_commit_callbacks):
    host, guest = person("Tanvir"), person("রুমি")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    services.connection_opened(room.code, guest)
    sent = []
    monkeypatch.setattr(publish, "room_changed",
                        lambda room, change, arm=None: sent.append((room, change)))
    with django_capture_on_commit_callbacks(execute=True):
        services.connection_closed(room.code, guest)
    ((closed_room, change),) = sent
    # Rendering it asks the database nothing more.
    with django_assert_num_queries(0):
        message = publish.build_update(closed_room, change)
    seats = json.loads(message["payloads"]["0"])["room"]["seats"]
    assert seats[1]["connected"] is False  # the change the command made, not a stale copy
