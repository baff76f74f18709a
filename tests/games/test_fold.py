"""The one fold over a record (``games.record.steps``): the checked replay, the
state cache's trusted fold, the replay's frames and the dice all read a record
the same way."""

from __future__ import annotations

import pytest

from games.base import next_seat
from games.record import RecordError, dice_of_record, fold, replay, rolls, steps
from games.registry import game_names, get_game
from games.simulate import simulate_record

SETUPS = [(name, n) for name in game_names()
          for n in (get_game(name).min_players, get_game(name).max_players)]
TABLE_EVENTS = [{"type": "timeout", "seat": 0}, {"type": "takeover", "seat": 0}]


def record_of(name: str, n: int) -> dict:
    return simulate_record(name, ["random"] * n, seed="fold", index=n)


def start(record: dict):
    game = get_game(record["game"])
    return game, game.initial_state(len(record["seats"]), record["options"])


@pytest.mark.parametrize("name,n", SETUPS)
def test_the_trusted_fold_reaches_the_checked_replays_state(name, n):
    record = record_of(name, n)
    game, initial = start(record)
    assert fold(game, record["events"], initial) == replay(record).state


@pytest.mark.parametrize("name,n", SETUPS)
@pytest.mark.parametrize("size", [1, 2, 5])
def test_a_state_moved_on_in_pieces_equals_one_fold(name, n, size):
    """The state cache: a state at seq k moved on by the events from k, even
    when k falls between an action and its consequences."""
    record = record_of(name, n)
    game, state = start(record)
    events = record["events"]
    for at in range(0, len(events), size):
        state = fold(game, events[at : at + size], state)
    assert state == fold(game, events, start(record)[1])


@pytest.mark.parametrize("name,n", SETUPS)
def test_each_step_accounts_for_its_action_and_consequences(name, n):
    record = record_of(name, n)
    game, initial = start(record)
    events = record["events"]
    read = list(steps(game, events, initial, check=True))
    # The steps cover every event once, in order, each starting at its action.
    assert read[0].index == 0 and read[-1].last == len(events) - 1
    for before, after in zip(read, read[1:], strict=False):
        assert after.index == before.last + 1
    for step in read:
        assert game.action_from_event(events[step.index]) == (step.seat, step.action)
        consequences = events[step.index + 1 : step.last + 1]
        assert all(game.action_from_event(e) is None for e in consequences)
    assert game.turn(read[-1].state) is None


@pytest.mark.parametrize("name,n", SETUPS)
def test_table_events_are_skipped_by_every_reader(name, n):
    record = record_of(name, n)
    game, initial = start(record)
    noisy = dict(record, events=[e for event in record["events"] for e in (*TABLE_EVENTS, event)])
    assert fold(game, noisy["events"], initial) == fold(game, record["events"], initial)
    assert replay(noisy).placings == record["placings"]
    assert [d for _, d in dice_of_record(noisy)] == [d for _, d in dice_of_record(record)]
    assert [i for i, _ in dice_of_record(noisy)] == [3 * i + 2 for i, _ in dice_of_record(record)]


@pytest.mark.parametrize("name,n", SETUPS)
def test_the_checked_fold_names_a_missing_consequence_or_an_action_too_many(name, n):
    record = record_of(name, n)
    game, initial = start(record)
    events = record["events"]
    with pytest.raises(RecordError, match="the game was already over") as extra:
        list(steps(game, events + [events[-2]], initial, check=True))
    assert extra.value.event_index == len(events)
    last = list(steps(game, events, initial, check=True))[-1]
    if last.last > last.index:  # the last action has consequences: cut one off
        with pytest.raises(RecordError, match="the record ends before"):
            list(steps(game, events[: last.last], initial, check=True))


@pytest.mark.parametrize("name,n", SETUPS)
def test_the_rolls_are_every_seats_dice_in_nonce_order(name, n):
    record = record_of(name, n)
    game, _ = start(record)
    read = list(rolls(game, record["events"]))
    assert [i for i, _ in read] == [i for i, _ in dice_of_record(record)]
    assert sum(len(d) for _, by_seat in read for d in by_seat.values()) == replay(
        record).dice_checked
    assert all(0 <= seat < n for _, by_seat in read for seat in by_seat)


def test_the_next_seat_skips_seats_that_are_out_and_wraps_around():
    assert next_seat(0, 4, ()) == 1
    assert next_seat(3, 4, ()) == 0
    assert next_seat(1, 4, (2, 3)) == 0
    assert next_seat(2, 5, {3, 4, 0}) == 1
    with pytest.raises(AssertionError):
        next_seat(0, 2, (0, 1))


SPOILED = [1.5, "1", None, [], {}, True, -1, 10**9]


@pytest.mark.parametrize("name", game_names())
def test_a_record_with_a_field_of_the_wrong_type_is_refused_never_a_crash(name):
    """A record from outside (the verify page, `manage.py replay`) is checked,
    never trusted: every field of the first events, spoiled one at a time
    (a seat of 1.0 once passed the turn check and then failed as an index,
    a 500 on the verify page), is either accepted or refused with the event
    named, never another exception."""
    game = get_game(name)
    record = record_of(name, game.min_players)
    refused = 0
    for index, event in enumerate(record["events"][:25]):
        for key in [k for k in event if k != "type"]:
            original = event[key]
            for value in [*SPOILED, float(original)] if isinstance(original, int) else SPOILED:
                event[key] = value
                try:
                    replay(record)
                except RecordError as exc:
                    refused += 1
                    assert exc.event_index is None or exc.event_index <= index + 8, (key, value)
            event[key] = original
    assert refused > 0
    replay(record)  # put back as it was: valid again
