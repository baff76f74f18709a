"""Presence that does not depend on a clean disconnect.

A seat is present while its page keeps talking: any message renews it, not
only a ping, and a seat that falls silent (its server process was killed, so
nobody ever said goodbye) is away after Seat.SILENT_AFTER_SECONDS, its absence
counted from its last sign of life, so the 45 s away rule applies as if it had
disconnected then (docs/protocol.md, "Reconnection"; docs/deploy.md, "Presence").
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from config.asgi import application
from rooms import clock, services
from rooms.models import Seat
from rooms.services import Actor
from tests.room_fixtures import paced_computers, person  # noqa: F401 - a fixture, by name

pytestmark = pytest.mark.usefixtures("paced_computers")



def started_with_host_connected():
    host, guest = person("Tanvir"), person("রুমি")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    services.game_start(room.code, host)
    services.connection_opened(room.code, host)  # ...and then its process dies
    return room, host


def fire(room):
    game_row = services.current_game(room)
    clock.advance(max(0.0, (game_row.deadline - clock.now()).total_seconds() + 0.1))
    return services.deadline_fire(game_row.id, game_row.seq)


def host_seat(room) -> Seat:
    return Seat.objects.get(room=room, index=0)


@pytest.mark.django_db
def test_a_seat_whose_process_died_is_away_after_the_silence_not_90_seconds():
    room, _ = started_with_host_connected()
    clock.advance(Seat.SILENT_AFTER_SECONDS - 1)
    assert host_seat(room).connected  # the count says connected and it spoke lately
    clock.advance(2)
    seat = host_seat(room)
    assert seat.connections == 1  # nobody said goodbye...
    assert not seat.connected  # ...yet the seat is away
    assert Seat.SILENT_AFTER_SECONDS < services.AWAY_FOR_TAKEOVER


@pytest.mark.django_db
def test_the_absence_counts_from_the_last_sign_of_life():
    room, _ = started_with_host_connected()
    clock.advance(Seat.SILENT_AFTER_SECONDS + 1)
    assert host_seat(room).away_seconds(clock.now()) == pytest.approx(
        Seat.SILENT_AFTER_SECONDS + 1, abs=0.5)
    # 41 s silent: a timeout, and the seat stays the player's.
    change = fire(room)
    assert [e["type"] for e in change.events[:2]] == ["timeout", "roll"]
    assert not host_seat(room).held
    # From 45 s silent, the next timeout of that seat hands it to a computer.
    while services.current_game(room).turn_seat != 0:
        fire(room)
    clock.advance(services.AWAY_FOR_TAKEOVER - (Seat.SILENT_AFTER_SECONDS + 1))
    change = fire(room)
    assert [e["type"] for e in change.events[:2]] == ["timeout", "takeover"]
    assert host_seat(room).held


@pytest.mark.django_db
def test_an_action_renews_presence_in_its_own_command():
    room, host = started_with_host_connected()
    clock.advance(Seat.SILENT_AFTER_SECONDS - 5)
    room.refresh_from_db()
    services.game_action(room.code, host, room.version, {"type": "roll"})
    clock.advance(10)  # 45 s after the connect, 10 s after the roll
    seat = host_seat(room)
    assert (clock.now() - seat.last_seen).total_seconds() == pytest.approx(10, abs=1)
    assert seat.connected


@pytest.mark.django_db
def test_actions_in_a_row_write_presence_at_most_every_few_seconds():
    room, host = started_with_host_connected()
    seen_at_connect = host_seat(room).last_seen
    room.refresh_from_db()
    change = services.game_action(room.code, host, room.version, {"type": "roll"})
    assert change.seen is None  # renewed a moment ago by the connect: no write
    assert host_seat(room).last_seen == seen_at_connect


# ---- any message counts, over the real socket stack --------------------------------


def guest_session(name: str) -> str:
    store = SessionStore()
    store["nickname"] = name
    store.create()
    return store.session_key


async def connect(code: str, session_key: str) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"),
               (b"cookie", f"sessionid={session_key}".encode())]
    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def receive(socket, kind: str):
    while True:
        message = await socket.receive_json_from(timeout=5)
        if message["type"] == kind:
            return message


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("frame", [
    {"type": "leave"},  # refused: the host keeps seat 1
    {"type": "react", "reaction": "clap"},
    {"type": "ping"},
])
async def test_any_message_from_a_seated_page_renews_its_presence(monkeypatch, frame):
    from django.core.cache import cache

    await sync_to_async(cache.clear)()  # guessing counters are per address
    monkeypatch.setattr(services, "SEEN_EVERY", 0)  # no waiting between two writes
    host_key = await sync_to_async(guest_session)("Tanvir")
    room = await sync_to_async(services.room_create)(
        actor=Actor(host_key, "Tanvir"), game="snakes", seats=2)
    socket = await connect(room.code, host_key)
    await receive(socket, "snapshot")
    long_ago = clock.now() - timedelta(seconds=Seat.SILENT_AFTER_SECONDS + 5)
    await Seat.objects.filter(room=room, index=0).aupdate(last_seen=long_ago)
    assert not (await Seat.objects.aget(room=room, index=0)).connected

    await socket.send_json_to({**frame, "id": "m1"})
    reply = await receive(socket, {"leave": "error", "react": "reaction",
                                   "ping": "pong"}[frame["type"]])
    assert reply is not None
    seat = await Seat.objects.aget(room=room, index=0)
    assert seat.last_seen > long_ago + timedelta(seconds=5)
    assert seat.connected
    await socket.disconnect()
