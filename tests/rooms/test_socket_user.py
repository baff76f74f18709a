"""Who a socket speaks for, through the real ASGI stack: a signed-in player's
seat carries their account (ratings, bans by account), a session whose
password hash no longer matches is a guest's, and a visitor with no cookie
gets a session of their own. The socket finds the user itself, with its room
(rooms.consumers._door), not through Channels' AuthMiddleware."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from rooms import services
from rooms.models import Seat
from tests.rooms.test_consumer import connect, receive

pytestmark = pytest.mark.django_db(transaction=True)


def signed_in(username: str) -> tuple[str, int]:
    """A session key in which ``username`` is signed in, and their id."""
    user = get_user_model().objects.create_user(username, password="a long pass phrase 7")
    client = Client()
    client.force_login(user)
    return client.session.session_key, user.id


def open_room() -> str:
    host = services.Actor("host-session-key-for-this-test", "Host")
    return services.room_create(actor=host, game="snakes", seats=3).code


async def join(code: str, key: str | None):
    socket = await connect(code, key)
    await receive(socket, "snapshot")
    await socket.send_json_to({"type": "join", "name": "Rumi", "id": "j"})
    joined = await receive(socket, "update", where=lambda m: m["you"]["seat"] is not None)
    return socket, joined["you"]["seat"]


def seat_user(code: str, index: int) -> tuple[int | None, str]:
    seat = Seat.objects.get(room__code=code, index=index)
    return seat.user_id, seat.session_key


async def test_a_signed_in_players_seat_carries_their_account():
    key, user_id = await sync_to_async(signed_in)("rumi")
    code = await sync_to_async(open_room)()
    socket, index = await join(code, key)
    assert await sync_to_async(seat_user)(code, index) == (user_id, key)
    await socket.disconnect()


async def test_a_session_whose_password_changed_is_a_guests():
    key, user_id = await sync_to_async(signed_in)("nila")

    def change_password() -> None:
        user = get_user_model().objects.get(pk=user_id)
        user.set_password("another long pass phrase 8")
        user.save()

    await sync_to_async(change_password)()
    code = await sync_to_async(open_room)()
    socket, index = await join(code, key)
    seat_user_id, seat_key = await sync_to_async(seat_user)(code, index)
    assert seat_user_id is None
    assert seat_key != key  # the stale session was flushed, as Django's sign-in check does
    assert not await sync_to_async(Session.objects.filter(session_key=key).exists)()
    await socket.disconnect()


async def test_a_visitor_without_a_cookie_gets_a_session_and_a_seat():
    code = await sync_to_async(open_room)()
    socket, index = await join(code, None)
    seat_user_id, seat_key = await sync_to_async(seat_user)(code, index)
    assert seat_user_id is None
    assert await sync_to_async(Session.objects.filter(session_key=seat_key).exists)()
    await socket.disconnect()
