"""An action the server read before the deadline beats the timeout, however
late it is processed (docs/protocol.md): the room socket claims the turn when
it reads the frame, and ``deadline_fire`` defers while the claim stands.

The services tests record claims as the socket does; the socket test forces
the race for real: the action's command is held before it starts, the clock
moves past the deadline, and the timer path (claim from the backend, fire)
runs in another thread."""

from __future__ import annotations

import threading

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from rooms import clock, services, ticker, timers
from rooms.models import Game, MoveLog, Room
from rooms.timers import InProcessTimers, get_timer_backend
from tests.room_fixtures import paced_computers, person  # noqa: F401 - a fixture, by name

pytestmark = pytest.mark.usefixtures("paced_computers")


def started_snakes(host=None, guest=None) -> tuple[Room, dict[int, services.Actor]]:
    host, guest = host or person("Tanvir"), guest or person("রুমি")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    services.game_start(room.code, host)
    room.refresh_from_db()
    return room, {0: host, 1: guest}


def pending(room: Room) -> Game:
    return services.current_game(room)


def past_deadline(game_row: Game) -> None:
    clock.advance((game_row.deadline - clock.now()).total_seconds() + 0.1)


def timeouts(room: Room) -> list[dict]:
    return [e for e in MoveLog.objects.filter(game__room=room).values_list("event", flat=True)
            if e["type"] == "timeout"]


@pytest.mark.django_db
class TestDeadlineFire:
    def claim(self, room, actor, version, received_ts):
        get_timer_backend().claim_action(room.id, actor.session_key, version, received_ts)

    def test_a_claim_read_before_the_deadline_defers_it_and_the_action_is_applied(
        self, django_capture_on_commit_callbacks
    ):
        room, players = started_snakes()
        game_row = pending(room)
        mover = players[game_row.turn_seat]
        self.claim(room, mover, room.version, game_row.deadline.timestamp() - 0.5)
        past_deadline(game_row)
        with django_capture_on_commit_callbacks(execute=True):
            assert services.deadline_fire(game_row.id, game_row.seq) is None
        # Armed again a grace later, for the same decision.
        key = f"g:{game_row.id}"
        backend = get_timer_backend()
        assert key not in dict(backend.claim_due(clock.timestamp()))
        grace = services.CLAIM_GRACE_SECONDS
        assert dict(backend.claim_due(clock.timestamp() + grace))[key] == game_row.seq
        assert timeouts(room) == []
        change = services.game_action(room.code, mover, room.version, {"type": "roll"})
        assert change.events[0]["type"] == "roll"
        assert change.events[0]["seat"] == game_row.turn_seat
        assert timeouts(room) == []
        # The deferred claim comes back for a seq the action has moved on from.
        assert services.deadline_fire(game_row.id, game_row.seq) is None

    @pytest.mark.parametrize("case", ["after_deadline", "old_version", "other_seat", "released"])
    def test_only_the_turns_own_claim_in_time_and_at_this_version_defers(self, case):
        room, players = started_snakes()
        game_row = pending(room)
        mover = players[game_row.turn_seat]
        other = players[1 - game_row.turn_seat]
        in_time = game_row.deadline.timestamp() - 0.5
        if case == "after_deadline":
            self.claim(room, mover, room.version, game_row.deadline.timestamp() + 0.05)
        elif case == "old_version":
            self.claim(room, mover, room.version - 1, in_time)
        elif case == "other_seat":
            self.claim(room, other, room.version, in_time)
        else:
            self.claim(room, mover, room.version, in_time)
            get_timer_backend().release_action(room.id, mover.session_key)
        past_deadline(game_row)
        change = services.deadline_fire(game_row.id, game_row.seq)
        assert change is not None
        assert change.events[0] == {"type": "timeout", "seat": game_row.turn_seat}

    def test_an_expired_claim_no_longer_holds_the_clock(self, monkeypatch):
        room, players = started_snakes()
        game_row = pending(room)
        mover = players[game_row.turn_seat]
        self.claim(room, mover, room.version, game_row.deadline.timestamp() - 0.5)
        later = timers.time.monotonic() + timers.CLAIM_TTL_SECONDS + 1
        monkeypatch.setattr(timers.time, "monotonic", lambda: later)
        past_deadline(game_row)
        change = services.deadline_fire(game_row.id, game_row.seq)
        assert change is not None and change.events[0]["type"] == "timeout"


def test_in_process_claims_replace_and_release():
    backend = InProcessTimers()
    assert backend.action_claim(1, "s") is None
    backend.claim_action(1, "s", 4, 100.0)
    backend.claim_action(1, "s", 5, 101.0)
    assert backend.action_claim(1, "s") == (5, 101.0)
    assert backend.action_claim(2, "s") is None
    backend.release_action(1, "s")
    assert backend.action_claim(1, "s") is None


# ---- the race through the socket ----------------------------------------------------


@pytest.fixture
def playing_room(transactional_db, settings):
    from tests.rooms.test_consumer import guest_session

    settings.KHELAGHOR_BOT_DELAY = 1.0
    return started_snakes(services.Actor(guest_session("Tanvir"), "Tanvir"),
                          services.Actor(guest_session("রুমি"), "রুমি"))


def fire_due_in_another_thread(game_row: Game) -> tuple[list, list]:
    """The ticker's path: claim what is due now from the backend and fire it,
    in a thread of its own (the socket's command holds the other one). What
    was claimed, and the game's move log after."""
    try:
        claims = get_timer_backend().claim_due(clock.timestamp())
        claims = [c for c in claims if c[0] == f"g:{game_row.id}"]
        ticker._fire_claimed(claims)
        return claims, list(MoveLog.objects.filter(game=game_row).values_list("event", flat=True))
    finally:
        connection.close()  # this thread ends here: let SQLite go


@pytest.mark.django_db(transaction=True)
async def test_a_roll_read_before_the_deadline_but_processed_after_it_is_not_lost(
    playing_room, monkeypatch
):
    from tests.rooms.test_consumer import connect, receive

    room, players = playing_room
    game_row = await sync_to_async(pending)(room)
    mover = players[game_row.turn_seat]
    socket = await connect(room.code, mover.session_key)
    snapshot = await receive(socket, "snapshot")
    version = snapshot["version"]

    # Hold the roll's command before it starts, as a busy server would.
    entered, go = threading.Event(), threading.Event()
    real_action = services.game_action

    def held_action(*args, **kwargs):
        entered.set()
        assert go.wait(10), "the test never let the roll through"
        return real_action(*args, **kwargs)

    monkeypatch.setattr(services, "game_action", held_action)
    await socket.send_json_to({"type": "action", "version": version, "id": "r1",
                               "action": {"type": "roll"}})
    assert await sync_to_async(entered.wait, thread_sensitive=False)(10)

    # The deadline passes while the roll waits; the timer comes for the seat.
    past_deadline(game_row)
    # (Not thread_sensitive: the one database thread is the one held.)
    fired, logged = await sync_to_async(fire_due_in_another_thread, thread_sensitive=False)(
        game_row)
    assert fired == [(f"g:{game_row.id}", game_row.seq)]
    assert logged == [], "the timer deferred to the claim: no timeout, no move"

    go.set()
    reply = await receive(socket, where=lambda m: m.get("id") == "r1")
    assert reply["type"] == "ok", reply
    update = await receive(socket, "update", where=lambda m: m["version"] == version + 1)
    assert update["events"][0]["type"] == "roll"
    assert update["events"][0]["seat"] == game_row.turn_seat
    log = [e async for e in MoveLog.objects.filter(game=game_row).values_list("event", flat=True)]
    assert [e["type"] for e in log] == ["roll"] + [e["type"] for e in update["events"][1:]]
    await socket.disconnect()

