"""Every moderator action reaches the players at the table at once, through the
normal publish path (on_commit -> group_send -> each connection's own update)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model

from rooms import moderation, services
from rooms.models import ModerationLog
from tests.rooms.test_consumer import connect, guest_session, receive

pytestmark = pytest.mark.django_db(transaction=True)


def _room_in_play():
    host_key, guest_key = guest_session("Tanvir"), guest_session("Rumi")
    host = services.Actor(host_key, "Tanvir")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, services.Actor(guest_key, "Rumi"))
    services.game_start(room.code, host)
    moderator = get_user_model().objects.create_superuser("mod", "m@example.com", "pw-1-tests")
    return room, host_key, guest_key, moderator


@pytest.fixture
async def table(settings):
    settings.KHELAGHOR_BOT_DELAY = 1000  # nothing moves unless we say so
    room, host_key, guest_key, moderator = await sync_to_async(_room_in_play)()
    host = await connect(room.code, host_key)
    guest = await connect(room.code, guest_key)
    await receive(host, "snapshot")
    await receive(guest, "snapshot")
    yield room, host, guest, moderator
    await host.disconnect()
    await guest.disconnect()


def _with_event(kind):
    return lambda m: any(e.get("type") == kind for e in m.get("events", []))


async def test_removing_a_player_reaches_everyone_and_the_seat_turns_computer(table):
    room, host, guest, moderator = table
    await sync_to_async(moderation.seat_remove)(room.id, 1, moderator=moderator, reason="rude")
    for socket in (host, guest):
        update = await receive(socket, "update", where=_with_event("removed"))
        assert {"type": "removed", "seat": 1} in update["events"]
        assert update["room"]["seats"][1]["kind"] == "bot"
    # The removed player is now a spectator of the table.
    assert update["you"]["seat"] is None


async def test_renaming_reaches_everyone_with_the_neutral_name(table):
    room, host, guest, moderator = table
    await sync_to_async(moderation.seat_rename)(room.id, 1, moderator=moderator, reason="rude")
    update = await receive(host, "update", where=_with_event("renamed"))
    assert update["room"]["seats"][1]["name"] == moderation.neutral_name(1)
    assert update["room"]["seats"][1]["name"] != "Rumi"


async def test_closing_tells_the_players_why_and_ends_the_game_as_aborted(table):
    room, host, guest, moderator = table
    await sync_to_async(moderation.moderator_close)(room.id, moderator=moderator,
                                                    reason="Abusive chat")
    for socket in (host, guest):
        update = await receive(socket, "update", where=_with_event("closed"))
        assert {"type": "closed", "reason": "Abusive chat"} in update["events"]
        assert update["room"]["status"] == "closed"
        assert update["room"]["closed_reason"] == "Abusive chat"
        assert update["game"]["status"] == "aborted"


async def test_banning_removes_the_player_at_once_and_is_logged(table):
    room, host, guest, moderator = table
    await sync_to_async(moderation.seat_ban)(room.id, 1, moderator=moderator, reason="cheat")
    update = await receive(guest, "update", where=_with_event("removed"))
    assert update["you"]["seat"] is None
    actions = await sync_to_async(
        lambda: sorted(ModerationLog.objects.values_list("action", flat=True)))()
    assert actions == ["ban", "remove"]
    await guest.send_json_to({"type": "ping"})
    assert (await receive(guest, "pong"))["type"] == "pong"
