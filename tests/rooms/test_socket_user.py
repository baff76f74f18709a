"""Who a socket speaks for, through the real ASGI stack: a signed-in player's
seat carries their account (ratings, bans by account), a session whose
password hash no longer matches is a guest's, and a visitor with no cookie
gets a session of their own. A socket cannot set a cookie, so a session made
for it is one its client never learns: such a socket watches, and is refused
a seat (one it took could never be found again, an integrator found). The
socket finds the user itself, with its room (rooms.consumers._door), not
through Channels' AuthMiddleware."""

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


async def join_refused(code: str, key: str | None) -> dict:
    socket = await connect(code, key)
    snapshot = await receive(socket, "snapshot")
    assert snapshot["you"]["seat"] is None
    await socket.send_json_to({"type": "join", "name": "Rumi", "id": "j"})
    refusal = await receive(socket, "error")
    await socket.disconnect()
    return refusal


def seats_taken(code: str) -> list[int]:
    return list(Seat.objects.filter(room__code=code).exclude(kind=Seat.Kind.OPEN)
                .values_list("index", flat=True))


async def test_a_session_whose_password_changed_is_flushed_and_takes_no_seat():
    key, user_id = await sync_to_async(signed_in)("nila")

    def change_password() -> None:
        user = get_user_model().objects.get(pk=user_id)
        user.set_password("another long pass phrase 8")
        user.save()

    await sync_to_async(change_password)()
    code = await sync_to_async(open_room)()
    refusal = await join_refused(code, key)
    assert refusal["code"] == "bad_message" and refusal["id"] == "j"
    assert "কুকি" in refusal["message"]  # in Bengali, the default
    assert await sync_to_async(seats_taken)(code) == [0], "only the host sits"
    # The stale session was flushed, as Django's sign-in check does.
    assert not await sync_to_async(Session.objects.filter(session_key=key).exists)()


async def test_a_visitor_without_a_cookie_watches_and_is_told_to_open_the_page_to_sit():
    code = await sync_to_async(open_room)()
    refusal = await join_refused(code, None)
    assert refusal["code"] == "bad_message"
    assert "কুকি" in refusal["message"]  # in Bengali, the default
    assert await sync_to_async(seats_taken)(code) == [0]
    # With a session the pages gave it, the same visitor sits.
    socket, index = await join(code, await sync_to_async(guest_key)())
    assert index == 1
    await socket.disconnect()


def guest_key() -> str:
    client = Client()
    client.get("/")
    client.post("/nickname/", {"name": "Rumi", "next": "/"})
    return client.session.session_key
