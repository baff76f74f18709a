"""Snakes & Ladders, docs/rules.md §3: one test per rule, named after it."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from games.base import IllegalAction, InvalidOptions, NotYourTurn
from games.snakes import GAME as snakes
from games.snakes import Board, SnakesState


def at(*squares, to_move=0, placings=(), board="classic"):
    """A state with the tokens on the given squares."""
    return SnakesState(
        board=Board.from_option(board), squares=tuple(squares), to_move=to_move,
        placings=tuple(placings),
    )


def roll(state, value, seat=None):
    seat = state.to_move if seat is None else seat
    return snakes.apply(state, seat, {"type": "roll", "dice": [value]})


def test_tokens_start_off_the_board():
    state = snakes.initial_state(3)
    assert state.squares == (0, 0, 0) and state.to_move == 0


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5])
def test_off_board_anything_but_six_does_nothing(value):
    state, events = roll(at(0, 0), value)
    assert state.squares == (0, 0)
    assert events == [{"type": "roll", "seat": 0, "value": value}]
    assert state.to_move == 1


def test_six_from_off_board_lands_on_square_6():
    state, events = roll(at(0, 0), 6)
    assert state.squares == (6, 0)
    assert events[1] == {"type": "move", "seat": 0, "from": 0, "to": 6}


def test_entry_on_square_6_takes_a_jump_there():
    board = {"ladders": {"6": 27}, "snakes": {}}
    state, events = roll(at(0, 0, board=board), 6)
    assert state.squares == (27, 0)
    assert events[1]["to"] == 27


def test_six_earns_another_roll_also_the_starting_six():
    state, _ = roll(at(0, 0), 6)
    assert state.to_move == 0


def test_no_limit_on_consecutive_sixes():
    state = at(0, 0)
    for _ in range(6):
        state, _ = roll(state, 6)
        assert state.to_move == 0


def test_token_moves_by_the_roll():
    state, events = roll(at(10, 0), 3)
    assert state.squares == (13, 0)
    assert events[1] == {"type": "move", "seat": 0, "from": 10, "to": 13}


def test_ladder_foot_climbs_to_its_top():
    state, events = roll(at(25, 0), 3)
    assert state.squares == (84, 0)
    assert events[1]["to"] == 84


def test_snake_head_slides_to_its_tail():
    state, _ = roll(at(90, 0), 5)
    assert state.squares == (75, 0)


def test_a_slide_back_to_the_start_square_has_no_move_event():
    state, events = roll(at(60, 0), 4)  # 64 is a snake down to 60
    assert state.squares == (60, 0)
    assert events == [{"type": "roll", "seat": 0, "value": 4}]


def test_overshooting_100_stays_put():
    state, events = roll(at(97, 0), 5)
    assert state.squares == (97, 0)
    assert len(events) == 1
    assert state.to_move == 1


def test_six_earns_another_roll_even_when_it_overshoots():
    state, _ = roll(at(97, 0), 6)
    assert state.squares == (97, 0) and state.to_move == 0


def test_exact_roll_reaches_100_and_finishes():
    state, _ = roll(at(97, 0, 0), 3)
    assert state.squares[0] == 100
    assert state.placings == (0,)
    assert state.to_move == 1


def test_ladder_to_100_finishes():
    state, _ = roll(at(77, 0, 0), 3)
    assert state.squares[0] == 100 and state.placings == (0,)


def test_a_finishing_six_earns_no_more_rolls():
    state, _ = roll(at(94, 0, 0), 6)
    assert state.placings == (0,) and state.to_move == 1


def test_finished_players_are_skipped():
    state, _ = roll(at(100, 5, 7, to_move=2, placings=(0,)), 2)
    assert state.to_move == 1


def test_others_play_on_for_places_and_the_last_takes_last_place():
    state, _ = roll(at(97, 0, 100, to_move=0, placings=(2,)), 3)
    assert snakes.turn(state) is None
    assert state.placings == (2, 0, 1)


def test_tokens_share_squares_and_nothing_is_captured():
    state, _ = roll(at(10, 13), 3)
    assert state.squares == (13, 13)


def test_only_the_seat_to_move_may_roll():
    with pytest.raises(NotYourTurn):
        roll(at(0, 0), 3, seat=1)


@pytest.mark.parametrize("dice", [[], [0], [7], [1, 2], ["6"], [True]])
def test_a_roll_needs_one_die_with_a_face(dice):
    with pytest.raises(IllegalAction):
        snakes.apply(at(0, 0), 0, {"type": "roll", "dice": dice})


@pytest.mark.parametrize(
    "board,reason",
    [
        ({"ladders": {"10": 5}, "snakes": {}}, "climb"),
        ({"ladders": {}, "snakes": {"10": 20}}, "slide down"),
        ({"ladders": {"3": 20}, "snakes": {"20": 4}}, "ends one jump and starts another"),
        ({"ladders": {"5": 101}, "snakes": {}}, "climb"),
        ({"ladders": {}, "snakes": {"100": 3}}, "slide down"),
        ({"ladders": {"5": 9}, "snakes": {"5": 2}}, "same square"),
        ("no-such-board", "Unknown board"),
    ],
)
def test_board_validation(board, reason):
    with pytest.raises(InvalidOptions, match=reason):
        snakes.initial_state(2, {"board": board})


def test_every_named_board_is_valid_and_records_as_data():
    for name in ("classic", "gentle"):
        options = snakes.resolve_options(2, {"board": name})
        assert set(options["board"]) == {"ladders", "snakes"}
        assert options["board"]["ladders"]


def test_record_options_list_the_classic_board():
    options = snakes.resolve_options(4, {})
    assert options["first_player"] == 0
    assert options["board"]["ladders"]["80"] == 100
    assert options["board"]["snakes"]["98"] == 78


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players):
    with pytest.raises(Exception, match="2 to 4"):
        snakes.initial_state(players)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 100), st.integers(1, 6))
def test_property_a_token_never_leaves_the_board_and_lands_off_jump_starts(square, value):
    board = Board.from_option("classic")
    assume(square not in board.ladders and square not in board.snakes and square != 100)
    state, _ = roll(at(square, 0), value)
    here = state.squares[0]
    assert 0 <= here <= 100
    assert here not in board.ladders and here not in board.snakes


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=300), st.integers(2, 4))
def test_property_the_turn_passes_unless_six_or_finished(rolls, players):
    state = snakes.initial_state(players)
    for value in rolls:
        if snakes.turn(state) is None:
            break
        seat = state.to_move
        state, _ = roll(state, value)
        if snakes.turn(state) is None:
            break
        if value == 6 and seat not in state.placings:
            assert state.to_move == seat
        else:
            assert state.to_move != seat
