"""The turns a computer plays for a held seat (``Seat.held_moves``): counted from
the takeover, only for the decisions chosen for that seat, and shown on the held
seat in snapshots and updates, so a player who comes back can be told.

Driven like tests/rooms/test_services.py: the services on the test database,
deadlines fired by moving the fake clock past them (``fire``), computers at a
human pace so that each of their moves comes from a deadline of its own.
"""

from __future__ import annotations

import json

import pytest

from rooms import clock, publish, services
from rooms.models import Room, Seat
from rooms.services import Actor, Change
from tests.room_fixtures import paced_computers, person  # noqa: F401 - a fixture, by name

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("paced_computers")]


def started(game: str = "snakes", seats: int = 2, bots: int = 0) -> tuple[Room, Actor, Actor]:
    """A room in play: the host (seat 0, who opens), a guest, ``bots`` computers."""
    host, guest = person("Tanvir"), person("রুমি")
    room = services.room_create(actor=host, game=game, seats=seats)
    services.seat_join(room.code, guest)
    for _ in range(bots):
        services.bot_add(room.code, host)
    services.game_start(room.code, host)
    return Room.objects.get(pk=room.pk), host, guest


def whose_turn(room: Room) -> int | None:
    return services.current_game(room).turn_seat


def act(room: Room, who: Actor, action: dict | None = None) -> Change:
    """``who`` plays ``action``, or the first thing their rules allow."""
    room.refresh_from_db()
    if action is None:
        action = services.snapshot_for(room.code, who.session_key)["game"]["legal"][0]
    return services.game_action(room.code, who, room.version, action)


def fire(room: Room) -> Change | None:
    """Move the clock past the pending deadline and let the timer fire."""
    game_row = services.current_game(room)
    clock.advance(max(0.0, (game_row.deadline - clock.now()).total_seconds() + 0.1))
    return services.deadline_fire(game_row.id, game_row.seq)


def counted(room: Room, index: int) -> int:
    return Seat.objects.get(room=room, index=index).held_moves


def seats_shown(message: dict) -> list[dict]:
    return message["room"]["seats"]


def update_payloads(room: Room, change: Change) -> dict[str, dict]:
    """Every payload of the group message the change is broadcast as (the
    seats' and the spectators'), as the pages that watch get them."""
    message = publish.build_update(Room.objects.get(pk=room.pk), change)
    return {key: json.loads(text) for key, text in message["payloads"].items()}


def test_the_turns_are_counted_from_the_takeover_and_only_while_the_seat_is_held():
    room, host, guest = started()
    # An earlier hold leaves its count on the row: the next takeover starts again.
    services.seat_leave(room.code, host)
    fire(room)
    assert counted(room, 0) == 1
    services.seat_reclaim(room.code, host)

    # Timeouts while the player still has the seat are not the computer's
    # turns for them; the one that hands the seat over is, the first of the hold.
    while True:
        if whose_turn(room) == 1:
            act(room, guest, {"type": "roll"})
            continue
        change = fire(room)
        if Seat.objects.get(room=room, index=0).held:
            break
        assert counted(room, 0) == 1, "the earlier hold's count, untouched by timeouts"
    assert [e["type"] for e in change.events[:2]] == ["timeout", "takeover"]
    assert counted(room, 0) == 1

    played = 1
    while played < 5:
        if whose_turn(room) == 1:
            act(room, guest, {"type": "roll"})  # the guest's own turns are not counted
            assert counted(room, 0) == played and counted(room, 1) == 0
            continue
        change = fire(room)
        assert "timeout" not in [e["type"] for e in change.events]  # a held seat's deadline
        played += 1
        assert counted(room, 0) == played


def test_leaving_mid_game_starts_a_hold_whose_count_a_second_leave_goes_on_with():
    room, host, guest = started()
    services.seat_leave(room.code, host)
    assert counted(room, 0) == 0
    fire(room)
    assert counted(room, 0) == 1
    services.seat_leave(room.code, host)  # already held: the same hold goes on
    assert counted(room, 0) == 1
    services.seat_reclaim(room.code, host)
    services.seat_leave(room.code, host)  # a new hold
    assert counted(room, 0) == 0


def test_only_the_decisions_chosen_for_the_held_seat_count_not_forced_moves_nor_computers():
    """Ludo, with a computer of its own in seat 2: the held seat 0 has rolls
    to make and tokens to choose (each a decision with its own deadline) and
    moves with no choice, which the table makes at once for anyone."""
    room, host, guest = started("ludo", 3, bots=1)
    services.seat_leave(room.code, host)
    decisions = 0  # deadlines of seat 0's that the computer met
    events_of_seat_0 = 0  # its rolls and moves, chosen or forced
    for _ in range(2000):
        if decisions >= 3 and events_of_seat_0 > decisions:
            break  # seat 0 has had a forced move besides its decisions
        room.refresh_from_db()
        if room.status != Room.Status.PLAYING:
            pytest.fail("the game ended before seat 0 had a forced move")
        turn = whose_turn(room)
        change = act(room, guest) if turn == 1 else fire(room)
        if turn == 0:
            decisions += 1
        events_of_seat_0 += sum(1 for e in change.events
                                if e.get("seat") == 0 and e["type"] in ("roll", "move"))
        assert counted(room, 0) == decisions
    else:
        pytest.fail("seat 0 never had a forced move")
    assert counted(room, 2) == 0, "a computer's own seat counts nothing"
    assert counted(room, 1) == 0


def test_computers_playing_without_a_pause_count_for_the_held_seat_too(settings):
    """When computers play at once (KHELAGHOR_BOT_DELAY=0) the held seat's turns
    are played inside the command that handed the turn on: the guest's roll."""
    settings.KHELAGHOR_BOT_DELAY = 0
    room, host, guest = started()
    while whose_turn(room) == 0:
        act(room, host, {"type": "roll"})
    services.seat_leave(room.code, host)  # on the guest's turn
    rolled_for_seat_0 = 0
    while rolled_for_seat_0 == 0:  # a guest's 6 rolls again before seat 0's turn
        assert whose_turn(room) == 1, "the held seat's turns are played without a deadline"
        change = act(room, guest, {"type": "roll"})
        rolled_for_seat_0 += sum(1 for e in change.events if e["type"] == "roll" and e["seat"] == 0)
    assert counted(room, 0) == rolled_for_seat_0
    assert {payload["room"]["seats"][0]["held_moves"]
            for payload in update_payloads(room, change).values()} == {rolled_for_seat_0}


def test_the_held_seat_shows_its_count_in_snapshots_and_updates_and_only_while_held():
    room, host, guest = started()
    services.seat_leave(room.code, host)
    change = fire(room)
    # Every page that watches gets it in the update: the player's own, the
    # other player's, a spectator's.
    payloads = update_payloads(room, change)
    assert set(payloads) == {"0", "1", "spectator"}
    for payload in payloads.values():
        held, other = seats_shown(payload)
        assert held["held"] is True and held["held_moves"] == 1
        assert "held_moves" not in other
    # A page that reconnects, or comes now, finds it in its snapshot: read
    # from the database, as the socket's first message is.
    for who in (host, guest, person("Mitu")):
        held, other = seats_shown(services.snapshot_for(room.code, who.session_key))
        assert held["held_moves"] == 1 and "held_moves" not in other

    # Once the seat is taken back the count is no longer shown (the page
    # kept the last one it saw).
    change = services.seat_reclaim(room.code, host)
    assert change.events == [{"type": "reclaim", "seat": 0}]  # the log's event, as it was
    for payload in update_payloads(room, change).values():
        assert "held_moves" not in seats_shown(payload)[0]
    assert "held_moves" not in seats_shown(services.snapshot_for(room.code, host.session_key))[0]


def test_the_move_log_keeps_its_events_as_they_were():
    """The count is the seat's, not the record's: takeover and reclaim are
    logged with the fields docs/record.md gives them and no more."""
    room, host, guest = started()
    services.seat_leave(room.code, host)
    fire(room)
    services.seat_reclaim(room.code, host)
    logged = [e for e in services.current_game(room).moves.order_by("seq")
              .values_list("event", flat=True) if e["type"] in ("takeover", "reclaim")]
    assert logged == [{"type": "takeover", "seat": 0, "reason": "left"},
                      {"type": "reclaim", "seat": 0}]
