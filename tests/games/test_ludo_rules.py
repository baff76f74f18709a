"""Ludo rules, one test per rule of docs/rules.md §2.

Positions are written as ``{seat: [progress of tokens 0..3]}``: -1 is base, 0 the
start square, 51..55 the home column and 56 home on the square board.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import IllegalAction, InvalidOptions, NotYourTurn
from games.ludo import GAME, ROLL
from games.ludo_geometry import GEOMETRIES, geometry_json

SQUARE = GEOMETRIES["square"]
HEX = GEOMETRIES["hex"]


def position(tokens: dict[int, list[int]], n: int | None = None, to_move: int = 0, **options):
    """A state with the given tokens (seats not listed are all in base), ``to_move``
    about to roll."""
    n = n or max(2, max(tokens) + 1)
    state = GAME.initial_state(n, options)
    rows = tuple(tuple(tokens.get(s, [-1, -1, -1, -1])) for s in range(n))
    return replace(state, tokens=rows, to_move=to_move)


def roll(state, *values):
    events = []
    for value in values:
        state, produced = GAME.apply(state, state.to_move, {"type": "roll", "dice": [value]})
        events += produced
    return state, events


def move(state, token):
    return GAME.apply(state, state.to_move, {"type": "move", "token": token})


def tokens(state):
    return {s: list(t) for s, t in enumerate(state.tokens)}


# ---- 2.4 rolling and the turn ----------------------------------------------------


def test_three_sixes_void_the_sequence():
    state = position({0: [0, 5, 10, -1]})
    state, events = roll(state, 6, 6)
    assert state.to_move == 0 and state.pending == ROLL  # 6s: roll again before moving
    state, more = roll(state, 6)
    assert [e["value"] for e in events + more] == [6, 6, 6]
    assert state.to_move == 1 and state.pending == ROLL
    assert tokens(state)[0] == [0, 5, 10, -1]


def test_a_six_that_cannot_move_voids_the_rest_of_the_sequence():
    state = position({0: [53, 56, 56, 56]})
    state, _ = roll(state, 6, 3)  # the 6 cannot move token 1, so the 3 is void too
    assert state.to_move == 1
    assert tokens(state)[0] == [53, 56, 56, 56]


def test_a_sequence_that_ends_early_earns_no_bonus_even_after_a_capture():
    state = position({0: [44, -1, 56, 56], 1: [24, -1, -1, -1]})  # seat 1 on square 50
    state, _ = roll(state, 6, 6, 1)
    state, events = move(state, 0)  # 44 -> 50 captures
    assert events[0]["captured"] == [{"seat": 1, "token": 0}]
    state, _ = move(state, 0)  # 50 -> 56 home; the 1 cannot move token 1 from base
    assert state.to_move == 1 and state.pending == ROLL


def test_two_captures_in_a_sequence_earn_one_bonus_sequence():
    # Seat 1 (arm 2, start 26) has tokens on squares 10 and 14.
    state = position({0: [4, 10, -1, -1], 1: [36, 40, -1, -1]})
    state, _ = roll(state, 6, 4)
    state, first = move(state, 0)  # 4 -> 10
    state, second = move(state, 1)  # 10 -> 14
    assert first[0]["captured"] == [{"seat": 1, "token": 0}]
    assert second[0]["captured"] == [{"seat": 1, "token": 1}]
    assert state.to_move == 0 and state.pending == ROLL and state.sequence == 2
    state, _ = roll(state, 2)
    state, _ = move(state, 0)
    assert state.to_move == 1  # one bonus sequence, however many captures


def test_bonus_sequence_has_its_own_three_sixes_count():
    state = position({0: [4, 20, -1, -1], 1: [36, -1, -1, -1]})
    state, _ = roll(state, 6, 6, 1)
    state, _ = move(state, 0)  # 4 -> 10 captures
    state, _ = move(state, 1)  # 20 -> 26
    state, _ = move(state, 1)  # 26 -> 27
    assert state.pending == ROLL and state.to_move == 0
    state, _ = roll(state, 6, 6)
    assert state.pending == ROLL and state.to_move == 0  # the first sequence's 6s do not count
    state, _ = roll(state, 6)
    assert state.to_move == 1
    assert tokens(state)[0] == [10, 27, -1, -1]  # only the bonus sequence was void


def test_rolls_are_used_in_the_order_rolled():
    state = position({0: [10, -1, -1, -1]})
    state, _ = roll(state, 6, 2)
    view = GAME.view_for(state, 0)
    assert view["rolls"] == [6, 2] and view["current"] == 0
    state, events = move(state, 0)
    assert (events[0]["from"], events[0]["to"]) == (10, 16)
    state, events = move(state, 0)
    assert (events[0]["from"], events[0]["to"]) == (16, 18)
    assert state.to_move == 1


def test_home_bonus_roll_on_gives_a_new_sequence():
    state = position({0: [53, -1, -1, -1]})
    state, _ = roll(state, 3)
    state, events = move(state, 0)
    assert events[0]["to"] == 56
    assert state.to_move == 0 and state.pending == ROLL and state.sequence == 2


def test_home_bonus_roll_off_gives_none():
    state = position({0: [53, -1, -1, -1]}, home_bonus_roll=False)
    state, _ = roll(state, 3)
    state, events = move(state, 0)
    assert events[0]["to"] == 56
    assert state.to_move == 1


def test_finished_players_remaining_rolls_are_void():
    state = position({0: [56, 56, 56, 50]}, n=3)
    state, _ = roll(state, 6, 3)
    state, events = move(state, 3)
    assert events[0]["to"] == 56
    assert GAME.placings(state) == [0]
    assert state.to_move == 1 and state.pending == ROLL  # the 3 and the home bonus are void


def test_three_plus_players_play_on_for_places():
    state = position({0: [56, 56, 56, 55], 2: [56, 56, 56, 55]}, n=3)
    state, _ = roll(state, 1)
    state, _ = move(state, 3)
    assert GAME.placings(state) == [0] and state.to_move == 1
    state, _ = roll(state, 3)  # seat 1 cannot move
    assert state.to_move == 2
    state, _ = roll(state, 1)
    state, _ = move(state, 3)
    assert GAME.turn(state) is None
    assert GAME.placings(state) == [0, 2, 1]  # the last one left takes last place


def test_finished_seats_are_skipped():
    state = position({0: [56, 56, 56, 55], 1: [56, 56, 56, 56]}, n=3, to_move=2)
    state = replace(state, placings=(1,))
    state, _ = roll(state, 2)  # seat 2 cannot move
    assert state.to_move == 0


# ---- 2.2 moves ------------------------------------------------------------------


def test_six_brings_a_token_out_or_moves_one():
    state = position({0: [-1, 10, -1, -1]})
    state, _ = roll(state, 6, 1)
    assert GAME.legal_actions(state, 0) == [{"type": "move", "token": t} for t in range(4)]
    out, events = move(state, 2)
    assert (events[0]["from"], events[0]["to"]) == (-1, 0)
    on, events = move(state, 1)
    assert (events[0]["from"], events[0]["to"]) == (10, 16)


def test_only_a_six_brings_a_token_out():
    state = position({0: [-1, -1, -1, -1]})
    state, _ = roll(state, 5)
    assert state.to_move == 1  # nothing could move


def test_exact_count_to_home():
    state = position({0: [53, 20, -1, -1]})
    state, _ = roll(state, 4)
    assert GAME.legal_actions(state, 0) == [{"type": "move", "token": 1}]
    with pytest.raises(IllegalAction, match="Token 1 needs exactly 3 to reach home"):
        move(state, 0)
    state = position({0: [53, 20, -1, -1]})
    state, _ = roll(state, 3)
    state, events = move(state, 0)
    assert events[0]["to"] == 56


def test_tokens_share_squares():
    # Two of seat 0's own tokens, and seat 1's token on the safe star square 8.
    state = position({0: [5, 8, -1, -1], 1: [34, -1, -1, -1]})
    state, _ = roll(state, 3)
    state, events = move(state, 0)
    assert events[0]["captured"] == []
    assert tokens(state)[0][:2] == [8, 8] and tokens(state)[1][0] == 34


# ---- 2.3 capture ----------------------------------------------------------------


def test_capture_of_tokens_of_two_seats_on_one_square():
    # Square 30: seat 1 (arm 1) at progress 17, seat 2 (arm 2) two tokens at 4.
    state = position({0: [27, -1, -1, -1], 1: [17, 3, -1, -1], 2: [4, 4, 9, -1]}, n=4)
    state, _ = roll(state, 3)
    state, events = move(state, 0)
    assert events[0]["captured"] == [
        {"seat": 1, "token": 0}, {"seat": 2, "token": 0}, {"seat": 2, "token": 1},
    ]
    assert tokens(state)[1] == [-1, 3, -1, -1]
    assert tokens(state)[2] == [-1, -1, 9, -1]


def test_nothing_captured_on_start_or_star_square():
    # Seat 1 (arm 2) has a token on square 0 (seat 0's start) and one on star square 8.
    state = position({0: [-1, 5, -1, -1], 1: [26, 34, -1, -1]})
    state, _ = roll(state, 6, 3)
    state, events = move(state, 0)
    assert events[0]["to"] == 0 and events[0]["captured"] == []
    state, events = move(state, 1)
    assert events[0]["to"] == 8 and events[0]["captured"] == []
    assert tokens(state)[1] == [26, 34, -1, -1]


def test_nothing_captured_in_home_column():
    # Progress 53 is in seat 0's home column; loop square 1 (53 mod 52) holds seat 1.
    state = position({0: [50, -1, -1, -1], 1: [27, -1, -1, -1]})
    state, _ = roll(state, 3)
    state, events = move(state, 0)
    assert events[0]["to"] == 53 and events[0]["captured"] == []
    assert tokens(state)[1] == [27, -1, -1, -1]


def test_a_token_on_the_loop_captures_on_an_unsafe_square():
    state = position({0: [1, -1, -1, -1], 1: [28, -1, -1, -1]})  # seat 1 on square 2
    state, _ = roll(state, 1)
    state, events = move(state, 0)
    assert events[0]["captured"] == [{"seat": 1, "token": 0}]
    assert state.to_move == 0 and state.pending == ROLL  # the capture bonus


# ---- 2.1 geometry and options -----------------------------------------------------


def test_square_geometry():
    assert (SQUARE.loop, SQUARE.last, SQUARE.home) == (52, 50, 56)
    assert SQUARE.safe == {0, 8, 13, 21, 26, 34, 39, 47}


def test_hex_geometry():
    assert (HEX.loop, HEX.last, HEX.home) == (78, 76, 82)
    assert [HEX.start(k) for k in range(6)] == [0, 13, 26, 39, 52, 65]
    assert [HEX.star(k) for k in range(6)] == [8, 21, 34, 47, 60, 73]
    assert HEX.safe == {13 * k for k in range(6)} | {13 * k + 8 for k in range(6)}
    assert HEX.square_of(5, 76) == (65 + 76) % 78
    assert HEX.square_of(5, 77) is None
    data = geometry_json("hex", 5)
    assert data["loop"] == 78 and data["home"] == 82 and data["home_column"] == 5
    assert data["seat_arms"] == [0, 1, 2, 3, 4]


def test_hex_board_plays_to_82():
    state = position({0: [76, -1, -1, -1]}, n=5)
    assert state.board == "hex"
    state, _ = roll(state, 6)
    state, _ = roll(state, 2)
    state, events = move(state, 0)
    assert events[0]["to"] == 82


@pytest.mark.parametrize(
    "n,arms", [(2, (0, 2)), (3, (0, 1, 2)), (4, (0, 1, 2, 3)), (5, tuple(range(5))),
               (6, tuple(range(6)))],
)
def test_default_arms(n, arms):
    state = GAME.initial_state(n, {})
    assert state.arms == arms
    assert [GAME.record_seat_extra(state, s) for s in range(n)] == [{"arm": a} for a in arms]


def test_options_are_resolved_for_the_record():
    assert GAME.resolve_options(4, {}) == {
        "board": "square", "home_bonus_roll": True, "first_player": 0,
    }
    assert GAME.resolve_options(6, {"first_player": 2})["board"] == "hex"


def test_board_must_match_the_number_of_players():
    with pytest.raises(InvalidOptions, match="square board is for 2 to 4 players"):
        GAME.initial_state(5, {"board": "square"})
    with pytest.raises(InvalidOptions, match="hexagonal board is for 5 or 6 players"):
        GAME.initial_state(3, {"board": "hex"})
    with pytest.raises(InvalidOptions, match="board must be"):
        GAME.initial_state(3, {"board": "round"})


# ---- the table's view of a decision ---------------------------------------------


def test_forced_when_one_token_can_move():
    state = position({0: [10, -1, -1, -1]})
    state, _ = roll(state, 3)
    assert GAME.turn(state).forced == {"type": "move", "token": 0}


def test_forced_when_all_movable_tokens_are_alike():
    state = position({0: [-1, -1, -1, -1]})
    state, _ = roll(state, 6, 2)
    assert GAME.turn(state).forced == {"type": "move", "token": 0}


def test_not_forced_with_a_real_choice():
    state = position({0: [-1, 10, -1, -1]})
    state, _ = roll(state, 6, 2)
    assert GAME.turn(state).forced is None
    assert GAME.turn(position({0: [0, 0, 0, 0]})).forced is None  # a roll is never forced


def test_view_shows_tokens_squares_rolls_and_the_last_move():
    state = position({0: [3, -1, 51, 56], 1: [10, -1, -1, -1]})
    state, _ = roll(state, 6, 4)
    view = GAME.view_for(state, None)
    assert view["seats"][0]["tokens"] == [3, -1, 51, 56]
    assert view["seats"][0]["squares"] == [3, None, None, None]
    assert view["seats"][1]["squares"] == [36, None, None, None]
    assert view["seats"][1]["arm"] == 2
    assert view["pending"] == "move" and view["movable"] == [0, 1]
    assert view["geometry"]["safe"] == sorted(SQUARE.safe)
    state, _ = move(state, 0)
    assert GAME.view_for(state, 1)["last_move"] == {
        "seat": 0, "token": 0, "from": 3, "to": 9, "captured": [],
    }


# ---- errors a player can read ---------------------------------------------------


def test_errors_text():
    state = position({0: [-1, 53, 56, 20]})
    with pytest.raises(IllegalAction, match="You must roll first"):
        move(state, 0)
    with pytest.raises(NotYourTurn, match="It is not your turn"):
        GAME.apply(state, 1, {"type": "roll", "dice": [3]})
    state, _ = roll(state, 4)
    with pytest.raises(IllegalAction, match="Token 1 is in base: only a 6 brings it out"):
        move(state, 0)
    with pytest.raises(IllegalAction, match="Token 2 needs exactly 3 to reach home"):
        move(state, 1)
    with pytest.raises(IllegalAction, match="Token 3 is already home"):
        move(state, 2)
    with pytest.raises(IllegalAction, match="There is no token 7"):
        move(state, 6)
    with pytest.raises(IllegalAction, match="your roll of 4 is waiting"):
        roll(state, 2)
    with pytest.raises(IllegalAction, match="roll the die or move a token"):
        GAME.apply(state, 0, {"type": "bid"})


def test_record_events_map_back_to_actions():
    assert GAME.action_from_event({"type": "roll", "seat": 1, "value": 4}) == (
        1, {"type": "roll", "dice": [4]},
    )
    assert GAME.action_from_event(
        {"type": "move", "seat": 1, "token": 2, "from": 3, "to": 7, "captured": []}
    ) == (1, {"type": "move", "token": 2})


# ---- properties over random play --------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 6),
    home_bonus=st.booleans(),
    dice=st.lists(st.integers(1, 6), min_size=50, max_size=400),
    choices=st.lists(st.integers(0, 3), min_size=50, max_size=400),
)
def test_random_play_keeps_the_invariants(n, home_bonus, dice, choices):
    state = GAME.initial_state(n, {"home_bonus_roll": home_bonus})
    geo = GEOMETRIES[state.board]
    choices = iter(choices)
    for value in dice:
        turn = GAME.turn(state)
        if turn is None:
            break
        if turn.is_roll:
            action = {"type": "roll", "dice": [value]}
        else:
            legal = GAME.legal_actions(state, turn.seat)
            action = legal[next(choices, 0) % len(legal)]
        before = state
        state, events = GAME.apply(state, turn.seat, action)
        assert all(len(t) == 4 for t in state.tokens) and len(state.tokens) == n
        assert all(-1 <= p <= geo.home for t in state.tokens for p in t)
        for event in events:
            if event["type"] != "move":
                continue
            if event["captured"]:
                assert 0 < event["to"] <= geo.last
                square = geo.square_of(state.arms[event["seat"]], event["to"])
                assert square not in geo.safe
                for c in event["captured"]:
                    was = before.tokens[c["seat"]][c["token"]]
                    assert geo.square_of(state.arms[c["seat"]], was) == square
                    assert state.tokens[c["seat"]][c["token"]] == -1
            # Only the mover's token and captured tokens changed.
            moved = {(event["seat"], event["token"])} | {
                (c["seat"], c["token"]) for c in event["captured"]
            }
            for s in range(n):
                for t in range(4):
                    if (s, t) not in moved:
                        assert state.tokens[s][t] == before.tokens[s][t]
