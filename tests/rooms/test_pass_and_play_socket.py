"""Pass and play through the real room socket (ASGI stack, channel layer):
what a phone shared by several players receives. At Liar's Dice no frame
carries a player's dice before that player tapped the cover (``show_seat``),
and once the turn moves on the next frame is a spectator's; at Snakes the
phone shows whoever's turn it is. Every frame is inspected."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from rooms import services
from rooms.models import Room
from tests.rooms.test_consumer import aguest, connect, guest_session

pytestmark = pytest.mark.django_db(transaction=True)

DEVICE = {"seats": [0, 1, 2], "own": 0, "secret": True}


async def frames_until(socket, done, seen: list, timeout: float = 5) -> dict:
    """Read frames into ``seen`` until one satisfies ``done``; return it."""
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        seen.append(frame)
        if done(frame):
            return frame


def dealt_to(code: str, seat: int) -> list[int]:
    """The dice of ``seat`` in the current round, from the game's record."""
    room = Room.objects.get(code=code)
    record = services.game_record(services.current_game(room))
    deal = [e for e in record["events"] if e["type"] == "round"][-1]
    return deal["dice"][str(seat)]


def assert_no_dice_of(frame: dict, seat: int) -> None:
    """``frame`` shows no hidden die: neither a cup of its own nor a deal."""
    game = frame.get("game") or {}
    view = game.get("view") or {}
    assert frame["you"]["seat"] is None, frame
    assert view.get("my_dice") is None
    for event in frame.get("events", []):
        if event["type"] == "round":
            assert event["dice"] == {}, event
    assert frame["device"] == DEVICE


async def liars_family(host_key: str):
    room = await sync_to_async(services.room_create)(
        actor=services.Actor(host_key, "Tanvir"), game="liars_dice", seats=3)
    socket = await connect(room.code, host_key)
    seen: list = []
    await frames_until(socket, lambda f: f["type"] == "snapshot", seen)
    for seat, name in ((1, "Rina"), (2, "মিতু")):
        await socket.send_json_to({"type": "add_device_player", "seat": seat, "name": name})
        lobby = await frames_until(
            socket, lambda f, s=seat: f["type"] == "update"
            and f["room"]["seats"][s]["kind"] == "human", seen)
    assert lobby["you"]["seat"] == 0 and lobby["you"]["is_host"]
    assert lobby["device"] == DEVICE
    assert [s["on_device"] for s in lobby["room"]["seats"]] == [False, True, True]
    return room.code, socket


async def test_a_shared_phone_gets_a_players_dice_only_after_their_tap():
    host_key = await aguest("Tanvir")
    code, socket = await liars_family(host_key)
    seen: list = []
    await socket.send_json_to({"type": "start"})
    frame = await frames_until(
        socket, lambda f: f["type"] == "update" and f["room"]["status"] == "playing", seen)
    for turn_number in range(5):
        turn = frame["game"]["turn"]["seat"]
        for before_tap in seen:
            if before_tap["type"] in ("update", "snapshot"):
                assert_no_dice_of(before_tap, turn)
        # Someone else's cup cannot be opened: only the seat whose turn it is.
        other = (turn + 1) % 3
        await socket.send_json_to({"type": "show_seat", "seat": other, "id": "early"})
        refused = await frames_until(socket, lambda f: f.get("id") == "early", [])
        assert refused["type"] == "error" and refused["code"] == "not_your_turn"
        # The tap: now, and only now, this player's dice.
        await socket.send_json_to({"type": "show_seat", "seat": turn, "id": f"tap{turn_number}"})
        shown = await frames_until(socket, lambda f, n=turn_number: f.get("id") == f"tap{n}", [])
        assert shown["type"] == "snapshot" and shown["you"]["seat"] == turn
        assert shown["game"]["view"]["my_dice"] == await sync_to_async(dealt_to)(code, turn)
        assert shown["device"] == DEVICE
        # The bid acts for the shown player; the next frame is a spectator's.
        legal = shown["game"]["legal"]
        bid = next(a for a in legal if a["type"] == "bid")
        seen = []
        await socket.send_json_to({"type": "action", "version": shown["version"],
                                   "action": bid, "seat": turn})
        frame = await frames_until(socket, lambda f: f["type"] == "update", seen)
        assert frame["events"][0] == {**bid, "seat": turn}
        assert frame["game"]["turn"]["seat"] != turn
        assert_no_dice_of(frame, turn)
    await socket.disconnect()


async def test_only_the_phones_own_seats_can_be_shown_or_played():
    host_key = await aguest("Tanvir")
    code, socket = await liars_family(host_key)
    await socket.send_json_to({"type": "start"})
    await frames_until(socket, lambda f: f["type"] == "update"
                       and f["room"]["status"] == "playing", [])
    # A spectator's page cannot open anyone's cup, nor act for a seat.
    stranger = await connect(code, await aguest("Rumi"))
    snapshot = await frames_until(stranger, lambda f: f["type"] == "snapshot", [])
    assert "device" not in snapshot
    turn = snapshot["game"]["turn"]["seat"]
    await stranger.send_json_to({"type": "show_seat", "seat": turn, "id": "peek"})
    refused = await frames_until(stranger, lambda f: f.get("id") == "peek", [])
    assert refused["code"] == "not_seated"
    assert refused["message"] == "এই আসনটি এই ফোনে খেলা হয় না"
    await stranger.send_json_to({"type": "action", "version": snapshot["version"],
                                 "action": {"type": "challenge"}, "seat": turn, "id": "act"})
    refused = await frames_until(stranger, lambda f: f.get("id") == "act", [])
    assert refused["code"] == "not_seated"
    room = await Room.objects.aget(code=code)
    assert room.version == snapshot["version"]
    await stranger.disconnect()
    await socket.disconnect()


async def test_at_snakes_a_shared_phone_shows_whoever_plays_now():
    host_key = await sync_to_async(guest_session)("Tanvir")
    room = await sync_to_async(services.room_create)(
        actor=services.Actor(host_key, "Tanvir"), game="snakes", seats=2)
    socket = await connect(room.code, host_key)
    await frames_until(socket, lambda f: f["type"] == "snapshot", [])
    await socket.send_json_to({"type": "add_device_player", "name": "Rina"})
    await frames_until(socket, lambda f: f["type"] == "update"
                       and f["room"]["seats"][1]["kind"] == "human", [])
    await socket.send_json_to({"type": "start"})
    frame = await frames_until(socket, lambda f: f["type"] == "update"
                               and f["room"]["status"] == "playing", [])
    turns = set()
    for _ in range(6):
        if frame["room"]["status"] != "playing":
            break
        turn = frame["game"]["turn"]["seat"]
        assert frame["you"]["seat"] == turn  # no cover: the dice are on the board
        assert frame["device"] == {"seats": [0, 1], "own": 0, "secret": False}
        turns.add(turn)
        await socket.send_json_to({"type": "action", "version": frame["version"],
                                   "action": {"type": "roll"}, "seat": turn})
        frame = await frames_until(socket, lambda f: f["type"] == "update", [])
    assert turns == {0, 1}
    await socket.disconnect()
