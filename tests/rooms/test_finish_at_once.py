"""Snakes & Ladders: once only computers are left to place, the table plays the
remaining placings at once (rooms.services.play.only_computers_to_place, for a game
declared finish_at_once), every roll
still drawn from the fair stream and written to the record.

A board whose only ladder climbs from the entry square 6 to 100 makes a game a
race to the first 6, so a few short games show every case.
"""

from __future__ import annotations

import pytest

from games.record import replay
from rooms import clock, services
from rooms.models import Game
from tests.reference_checker import check
from tests.room_fixtures import person

pytestmark = pytest.mark.django_db

RACE = {"ladders": {"6": 100}, "snakes": {}}


@pytest.fixture(autouse=True)
def _computers_take_their_time(settings):
    settings.KHELAGHOR_BOT_DELAY = 1.0  # a computer's roll waits for its deadline
    clock.reset()
    services.forget_cached_states()
    yield
    clock.reset()


def race_room(bots: int = 2, board=RACE):
    host = person("Tanvir")
    room = services.room_create(actor=host, game="snakes", seats=1 + bots, options={"board": board})
    for _ in range(bots):
        services.bot_add(room.code, host)
    return room, host


def game_of(room) -> Game:
    room.refresh_from_db()
    return services.current_game(room)


def fire(room):
    game_row = game_of(room)
    clock.advance(max(0.0, (game_row.deadline - clock.now()).total_seconds() + 0.1))
    return services.deadline_fire(game_row.id, game_row.seq)


def play_one(room, host):
    """Play a game out: the host rolls at their turn, computers on their deadline.
    Returns the change of the host's roll that placed them first (None if a
    computer placed first) and the computers' changes before that."""
    winning, computer_changes = None, []
    for _ in range(2000):
        game_row = game_of(room)
        if game_row.status != Game.Status.IN_PROGRESS:
            return winning, computer_changes
        if game_row.turn_seat == 0:
            nobody_placed = not services.load_state(game_row).placings
            change = services.game_action(room.code, host, room.version, {"type": "roll"})
            reached = any(e["type"] == "move" and e["seat"] == 0 and e["to"] == 100
                          for e in change.events)
            if reached and nobody_placed:
                winning = change
        else:
            computer_changes.append(fire(room))
    raise AssertionError("the game did not end")


def test_the_computers_place_at_once_after_the_human_wins_and_the_record_replays():
    room, host = race_room(bots=2)
    for number in range(1, 41):
        services.game_start(room.code, host)
        winning, computer_changes = play_one(room, host)
        game_row = game_of(room)
        assert game_row.number == number and game_row.status == Game.Status.FINISHED
        # While the human was still to be placed, each computer roll waited for
        # its own deadline: one roll per timer.
        for change in computer_changes:
            assert [e["type"] for e in change.events].count("roll") == 1, change.events
        if winning is None:
            assert game_row.placings[0] != 0
            continue
        # The human's winning roll and every remaining computer roll, in one change.
        types = [e["type"] for e in winning.events]
        after = types[types.index("move") + 1:]
        assert after.count("roll") >= 1, types
        assert types[-1] == "finished"
        assert winning.events[-1]["placings"] == game_row.placings
        assert game_row.placings[0] == 0 and sorted(game_row.placings) == [0, 1, 2]
        assert winning.deadline is None and game_row.deadline is None  # nothing left to arm
        record = services.game_record(game_row)
        rolls = [e for e in record["events"] if e["type"] == "roll"]
        assert len(rolls) == game_row.nonce  # every roll drawn is in the record
        checked = replay(record, check_dice=True)
        assert checked.placings == game_row.placings and checked.dice_checked == len(rolls)
        assert check(record) is None  # the independent reading of docs/record.md agrees
        return
    raise AssertionError("the human never placed first in 40 games")


def test_a_player_who_left_is_placed_by_the_computer_with_the_rest():
    room, host = race_room(bots=1)
    services.game_start(room.code, host)
    services.seat_leave(room.code, host)  # a computer holds the seat; nobody is here
    change = fire(room)
    game_row = game_of(room)
    assert game_row.status == Game.Status.FINISHED
    assert change.events[-1] == {"type": "finished", "placings": game_row.placings}
    record = services.game_record(game_row)
    assert replay(record, check_dice=True).placings == game_row.placings
    assert check(record) is None


def test_a_human_still_to_place_keeps_the_computers_at_their_pace():
    room, host = race_room(bots=2, board="classic")  # nobody reaches 100 in one turn
    services.game_start(room.code, host)
    while game_of(room).turn_seat == 0:
        services.game_action(room.code, host, game_of(room).room.version, {"type": "roll"})
    game_row = game_of(room)
    assert game_row.status == Game.Status.IN_PROGRESS
    assert game_row.turn_seat == 1 and game_row.deadline_kind == "bot"
    change = fire(room)
    assert [e["type"] for e in change.events].count("roll") == 1
    assert game_of(room).status == Game.Status.IN_PROGRESS
