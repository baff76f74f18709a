"""Liar's Dice, docs/rules.md §1: one test per rule, named after it."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from games.base import IllegalAction, InvalidOptions, NotYourTurn, Turn, next_seat
from games.liars_dice import GAME as liars
from games.liars_dice import Bid, LiarsState, bid_key
from games.record import replay
from games.simulate import simulate_record

CHALLENGE = {"type": "challenge"}


def table(hands, *, bids=(), to_move=None, counts=None, eliminated=(), round=1, starter=None):
    """A state in the middle of a round: ``hands`` like {0: "31622", 1: "45"};
    seats missing from ``hands`` (up to the highest one) are out. ``bids`` are
    (seat, quantity, face); the seat to act defaults to the one after the last bidder."""
    n = max(hands) + 1
    dice = tuple(tuple(int(c) for c in hands.get(s, "")) for s in range(n))
    counts = tuple(len(h) for h in dice) if counts is None else tuple(counts)
    bid_objs = tuple(Bid(*b) for b in bids)
    if to_move is None:
        out = [s for s, c in enumerate(counts) if not c]
        to_move = next_seat(bid_objs[-1].seat, n, out) if bid_objs else min(hands)
    return LiarsState(
        counts=counts,
        hands=dice,
        round=round,
        starter=min(hands) if starter is None else starter,
        to_move=to_move,
        bids=bid_objs,
        ones_wild=all(b.face != 1 for b in bid_objs),
        eliminated=tuple(eliminated),
    )


def bid(state, quantity, face, seat=None):
    seat = state.to_move if seat is None else seat
    return liars.apply(state, seat, {"type": "bid", "quantity": quantity, "face": face})


def challenge(state, seat=None):
    seat = state.to_move if seat is None else seat
    return liars.apply(state, seat, CHALLENGE)


def roll(state, dice):
    return liars.apply(state, None, {"type": "roll", "dice": list(dice)})


# ---- setup and options ----------------------------------------------------------


def test_default_options_are_five_dice_and_seat_0_opens():
    assert liars.resolve_options(3, {}) == {"dice_per_player": 5, "first_player": 0}


def test_dice_per_player_may_be_1_to_5():
    assert liars.initial_state(2, {"dice_per_player": 2}).counts == (2, 2)
    with pytest.raises(InvalidOptions):
        liars.initial_state(2, {"dice_per_player": 6})


def test_game_is_for_2_to_6_players():
    liars.initial_state(6)
    with pytest.raises(Exception, match="2 to 6 players"):
        liars.initial_state(7)


# ---- 1.1 rounds ---------------------------------------------------------------------


def test_every_round_starts_with_the_table_rolling_all_dice():
    state = liars.initial_state(3)
    assert liars.turn(state) == Turn(seat=None, dice=15)
    assert all(liars.legal_actions(state, s) == [] for s in range(3))


def test_round_event_lists_dice_by_seat_as_rolled():
    state = liars.initial_state(2, {"dice_per_player": 3})
    state, events = roll(state, [6, 1, 3, 2, 2, 5])
    assert events == [
        {"type": "round", "round": 1, "starter": 0, "dice": {"0": [6, 1, 3], "1": [2, 2, 5]}}
    ]
    assert state.hands == ((6, 1, 3), (2, 2, 5))


def test_round_event_dice_order_skips_seats_that_are_out():
    state = table({0: "", 1: "22", 2: "3"}, counts=(0, 2, 1), eliminated=(0,))
    state, _ = challenge(bid(state, 1, 2)[0])
    _, events = roll(state, [4, 5])
    assert events[0]["dice"] == {"1": [4], "2": [5]}
    assert liars.dice_in_event(events[0]) == [4, 5]


def test_first_player_option_opens_round_1():
    state = liars.initial_state(3, {"first_player": 2})
    state, events = roll(state, [2] * 15)
    assert events[0]["starter"] == 2 and liars.turn(state).seat == 2


def test_turns_go_clockwise_from_the_opener():
    state = table({0: "22", 1: "33", 2: "44"}, to_move=2)
    state, _ = bid(state, 1, 2)
    assert state.to_move == 0


def test_seats_that_are_out_are_skipped():
    state = table({0: "22", 1: "", 2: "44"}, counts=(2, 0, 2), eliminated=(1,))
    state, _ = bid(state, 1, 2)
    assert state.to_move == 2


# ---- 1.2 bids ---------------------------------------------------------------------------


def test_ones_rank_highest():
    ranks = sorted(range(1, 7), key=lambda f: bid_key(1, f))
    assert ranks == [2, 3, 4, 5, 6, 1]


def test_raise_from_sixes_to_ones_at_same_quantity():
    state = table({0: "22", 1: "33"}, bids=[(0, 2, 6)])
    state, _ = bid(state, 2, 1)
    assert state.current_bid == Bid(1, 2, 1)


def test_ones_cannot_drop_to_sixes_at_same_quantity():
    state = table({0: "22", 1: "33"}, bids=[(0, 2, 1)])
    with pytest.raises(IllegalAction, match="must beat 2 × 1"):
        bid(state, 2, 6)


def test_higher_quantity_of_any_face_is_a_raise():
    state = table({0: "22", 1: "33"}, bids=[(0, 2, 1)])
    state, _ = bid(state, 3, 2)
    assert state.current_bid == Bid(1, 3, 2)


def test_same_quantity_lower_face_is_not_a_raise():
    state = table({0: "22", 1: "33", 2: "44"}, bids=[(0, 3, 4)])
    with pytest.raises(IllegalAction) as err:
        bid(state, 3, 2)
    assert str(err.value) == "A bid must beat 3 × 4: more dice, or the same number of a higher face"


def test_bid_cannot_exceed_dice_in_play():
    state = table({0: "22222", 1: "3333", 2: "444"})
    with pytest.raises(IllegalAction) as err:
        bid(state, 13, 2)
    assert str(err.value) == "There are only 12 dice in play"
    bid(state, 12, 2)


def test_opening_bid_may_be_anything_including_ones():
    state = table({0: "22", 1: "33"})
    legal = liars.legal_actions(state, 0)
    assert CHALLENGE not in legal
    assert len(legal) == 4 * 6
    assert {"type": "bid", "quantity": 1, "face": 1} in legal


def test_opener_cannot_challenge():
    state = table({0: "22", 1: "33"})
    with pytest.raises(IllegalAction) as err:
        challenge(state)
    assert str(err.value) == (
        "The opening bid cannot be a challenge: there is nothing to challenge yet"
    )


def test_legal_actions_are_challenge_and_every_raise():
    state = table({0: "22", 1: "33"}, bids=[(0, 3, 6)])
    legal = liars.legal_actions(state, 1)
    assert legal == [
        CHALLENGE,
        {"type": "bid", "quantity": 3, "face": 1},
        *({"type": "bid", "quantity": 4, "face": f} for f in (2, 3, 4, 5, 6, 1)),
    ]
    assert liars.legal_actions(state, 0) == []


def test_each_call_gets_a_list_of_its_own():
    # The bids are built once per count of dice and shared (an update to the
    # seat to move and every computer's decision built them anew); the list a
    # caller gets is still its own to change.
    state = table({0: "22", 1: "33"}, bids=[(0, 3, 6)])
    first = liars.legal_actions(state, 1)
    first.clear()
    assert len(liars.legal_actions(state, 1)) == 8
    opening = table({0: "22", 1: "33"})
    assert liars.legal_actions(opening, 0) == [
        {"type": "bid", "quantity": q, "face": f} for q in (1, 2, 3, 4) for f in (2, 3, 4, 5, 6, 1)
    ]


def test_forced_challenge_at_total_dice_ones():
    state = table({0: "22", 1: "33"}, bids=[(0, 4, 1)])
    assert liars.legal_actions(state, 1) == [CHALLENGE]
    assert liars.turn(state) == Turn(seat=1, forced=CHALLENGE)


def test_only_the_player_to_act_may_challenge():
    state = table({0: "22", 1: "33", 2: "44"}, bids=[(0, 2, 3)])
    with pytest.raises(NotYourTurn) as err:
        challenge(state, seat=2)
    assert str(err.value) == "Only the player in seat 2, the next player, can challenge now"
    assert err.value.for_players(["Asha", "Bilal", "Chitra"]) == (
        "Only Bilal, the next player, can challenge now"
    )


def test_only_the_player_to_act_may_bid():
    state = table({0: "22", 1: "33", 2: "44"}, bids=[(0, 2, 3)])
    with pytest.raises(NotYourTurn):
        bid(state, 3, 3, seat=0)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "bid", "quantity": 2},
        {"type": "bid", "quantity": 2, "face": 7},
        {"type": "bid", "quantity": 0, "face": 3},
        {"type": "bid", "quantity": "2", "face": 3},
        {"type": "bid", "quantity": True, "face": 3},
    ],
)
def test_malformed_bid_is_refused_with_a_reason(action):
    state = table({0: "22", 1: "33"})
    with pytest.raises(IllegalAction) as err:
        liars.apply(state, 0, action)
    assert str(err.value) == "A bid needs a quantity and a face from 1 to 6"


def test_unknown_action_is_refused():
    with pytest.raises(IllegalAction, match="either bid or challenge"):
        liars.apply(table({0: "22", 1: "33"}), 0, {"type": "pass"})


def test_rolling_in_the_middle_of_a_round_is_refused():
    with pytest.raises(IllegalAction, match="already rolled"):
        roll(table({0: "22", 1: "33"}), [1, 1, 1, 1])


def test_a_player_cannot_act_while_the_table_rolls():
    state = liars.initial_state(2)
    with pytest.raises(NotYourTurn):
        bid(state, 1, 2, seat=0)


def test_apply_never_changes_the_given_state():
    state = table({0: "22", 1: "33"}, bids=[(0, 2, 3)])
    snapshot = copy.deepcopy(state)
    bid(state, 3, 3)
    challenge(state)
    assert state == snapshot


# ---- 1.3 wild ones ---------------------------------------------------------------------


def test_ones_are_wild_at_the_start_of_a_round():
    state = table({0: "11", 1: "33"}, bids=[(0, 4, 3)])
    _, events = challenge(state)
    assert events == [{"type": "challenge", "seat": 1, "count": 4, "loser": 1}]


def test_opening_with_ones_closes_wild_ones():
    state = table({0: "11", 1: "33"})
    state, _ = bid(state, 1, 1)
    assert state.ones_wild is False
    state, _ = bid(state, 3, 3)
    _, events = challenge(state)
    assert events[0]["count"] == 2 and events[0]["loser"] == 1


def test_ones_stop_being_wild_once_bid():
    state = table({0: "11", 1: "33", 2: "63"}, bids=[(0, 2, 3)])
    state, _ = bid(state, 2, 1)
    state, _ = bid(state, 4, 3)
    assert state.ones_wild is False
    _, events = challenge(state)
    assert events[0]["count"] == 3  # the two 1s no longer count as 3s


def test_ones_are_wild_again_in_the_next_round():
    state = table({0: "11", 1: "33"}, bids=[(0, 1, 1)])
    state, _ = challenge(state)
    state, _ = roll(state, [1, 3, 3])
    assert state.ones_wild is True


# ---- 1.4 the challenge ------------------------------------------------------------------


def test_count_for_ones_is_the_number_of_ones():
    state = table({0: "11264", 1: "31111"}, bids=[(0, 6, 1)])
    _, events = challenge(state)
    assert events[0]["count"] == 6


def test_count_for_a_face_while_ones_wild_adds_the_ones():
    state = table({0: "14264", 1: "34111"}, bids=[(0, 6, 4)])
    _, events = challenge(state)
    assert events[0]["count"] == 7


def test_count_for_a_face_once_ones_are_not_wild_is_that_face_alone():
    state = table({0: "14264", 1: "34111"}, bids=[(1, 2, 1), (0, 3, 4)], to_move=1)
    _, events = challenge(state)
    assert events[0]["count"] == 3


def test_challenger_loses_when_bid_stands():
    state = table({0: "44", 1: "41"}, bids=[(0, 4, 4)])
    state, events = challenge(state)
    assert events == [{"type": "challenge", "seat": 1, "count": 4, "loser": 1}]
    assert state.counts == (2, 1)


def test_bidder_loses_when_bid_fails():
    state = table({0: "44", 1: "52"}, bids=[(0, 3, 4)])
    state, events = challenge(state)
    assert events == [{"type": "challenge", "seat": 1, "count": 2, "loser": 0}]
    assert state.counts == (1, 2)


def test_exactly_one_die_is_lost_and_the_round_ends():
    state = table({0: "44", 1: "52", 2: "666"}, bids=[(0, 3, 4), (1, 4, 4)])
    state, _ = challenge(state)
    assert state.total_dice == 6
    assert liars.turn(state) == Turn(seat=None, dice=6)
    assert state.bids == ()


def test_loser_opens_next_round():
    state = table({0: "44", 1: "52", 2: "666"}, bids=[(0, 3, 4), (1, 4, 4)])
    state, _ = challenge(state)  # seat 2 challenges 4 × 4: two 4s, seat 1 loses
    state, events = roll(state, [1] * 6)
    assert events[0]["starter"] == 1 and state.to_move == 1


def test_next_survivor_opens_after_elimination():
    state = table({0: "22", 1: "5", 2: "666"}, bids=[(0, 2, 6), (1, 3, 6)])
    state, events = challenge(state)  # seat 2 challenges 3 × 6: they stand, seat 2 loses
    assert events[0]["loser"] == 2
    state = table({0: "22", 1: "5", 2: "66"}, bids=[(1, 3, 3)])
    state, events = challenge(state)  # seat 2 challenges 3 × 3: none, seat 1 is out
    assert events[0]["loser"] == 1 and state.eliminated == (1,)
    state, events = roll(state, [2] * 4)
    assert events[0]["starter"] == 2


def test_next_survivor_wraps_around_the_table():
    state = table({0: "22", 1: "33", 2: "4"}, bids=[(2, 2, 5)])
    state, _ = challenge(state)
    assert state.eliminated == (2,) and state.starter == 0


# ---- 1.5 elimination and the end ------------------------------------------------------


def test_last_player_with_dice_wins():
    state = table({0: "2", 1: "3"}, bids=[(0, 2, 2)])
    state, _ = challenge(state)
    assert liars.turn(state) is None
    assert liars.placings(state) == [1, 0]


def test_placings_winner_then_reverse_elimination():
    state = table({0: "2", 1: "", 2: "5", 3: ""}, counts=(1, 0, 1, 0), eliminated=(3, 1),
                  bids=[(0, 2, 5)])
    assert liars.placings(state) == [1, 3]  # so far: the seats out, latest first
    state, _ = challenge(state)
    assert liars.placings(state) == [2, 0, 1, 3]


def test_finished_game_refuses_actions():
    state, _ = challenge(table({0: "2", 1: "3"}, bids=[(0, 2, 2)]))
    with pytest.raises(IllegalAction, match="over"):
        roll(state, [1])


# ---- views ----------------------------------------------------------------------------------


def test_view_hides_others_dice():
    state = table({0: "31622", 1: "45"}, bids=[(0, 2, 6)])
    view = liars.view_for(state, 1)
    assert view["my_dice"] == [4, 5]
    assert "31622" not in str(view).replace(", ", "")
    assert view["dice_counts"] == [5, 2]
    assert view["bid"] == {"seat": 0, "quantity": 2, "face": 6}
    assert view["to_move"] == 1 and view["total_dice"] == 7 and view["ones_wild"] is True


def test_spectator_sees_no_dice():
    state = table({0: "31622", 1: "45"}, bids=[(0, 2, 6)])
    view = liars.view_for(state, None)
    assert view["my_dice"] is None
    assert view["last_reveal"] is None


def test_reveal_shows_every_hand_after_the_challenge():
    state = table({0: "31622", 1: "45"}, bids=[(0, 2, 6), (1, 3, 2)])
    state, _ = challenge(state)
    for seat in (0, 1, None):
        reveal = liars.view_for(state, seat)["last_reveal"]
        assert reveal == {
            "round": 1,
            "hands": [[3, 1, 6, 2, 2], [4, 5]],
            "bid": {"seat": 1, "quantity": 3, "face": 2},
            "ones_wild": True,
            "count": 3,
            "challenger": 0,
            "loser": 0,
            "bid_stands": True,
            "counted": [[1, 3, 4], []],
        }


def test_view_lists_this_rounds_bids_and_wild_state():
    state = table({0: "22", 1: "33", 2: "44"}, bids=[(0, 1, 2), (1, 1, 1)])
    view = liars.view_for(state, 2)
    assert view["bids"] == [
        {"seat": 0, "quantity": 1, "face": 2},
        {"seat": 1, "quantity": 1, "face": 1},
    ]
    assert view["ones_wild"] is False


def test_redrawn_hidden_dice_keep_the_counts_and_the_own_hand():
    state = table({0: "31622", 1: "45", 2: "666"})
    other = liars.with_hidden_redrawn(state, 1, random.Random(1))
    assert other.hands[1] == (4, 5)
    assert [len(h) for h in other.hands] == [5, 2, 3]
    assert liars.view_for(other, 1) == liars.view_for(state, 1)


# ---- the record ------------------------------------------------------------------------


def test_events_map_back_to_actions():
    assert liars.action_from_event(
        {"type": "round", "round": 1, "starter": 0, "dice": {"1": [5], "0": [3, 4]}}
    ) == (None, {"type": "roll", "dice": [3, 4, 5]})
    assert liars.action_from_event({"type": "bid", "seat": 1, "quantity": 2, "face": 3}) == (
        1, {"type": "bid", "quantity": 2, "face": 3},
    )
    assert liars.action_from_event({"type": "challenge", "seat": 0, "count": 1, "loser": 1}) == (
        0, CHALLENGE,
    )


def test_simulated_record_replays_with_all_options_listed():
    record = simulate_record("liars_dice", ["prob", "standard", "random"], seed=3)
    assert record["options"] == {"dice_per_player": 5, "first_player": 0}
    assert replay(record).placings == record["placings"]


# ---- properties ----------------------------------------------------------------------------


def _random_table(data):
    n = data.draw(st.integers(2, 6))
    counts = [data.draw(st.integers(0, 5)) for _ in range(n)]
    if sum(1 for c in counts if c) < 2:
        counts[0], counts[1] = 1, 1
    hands = {s: "".join(str(data.draw(st.integers(1, 6))) for _ in range(c))
             for s, c in enumerate(counts)}
    alive = [s for s, c in enumerate(counts) if c]
    state = table(hands, counts=counts, to_move=data.draw(st.sampled_from(alive)),
                  eliminated=[s for s, c in enumerate(counts) if not c])
    for _ in range(data.draw(st.integers(0, 6))):
        legal = [a for a in liars.legal_actions(state, state.to_move) if a["type"] == "bid"]
        if not legal:
            break
        state, _ = liars.apply(state, state.to_move, data.draw(st.sampled_from(legal[:20])))
    return state


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_every_legal_bid_beats_the_current_bid(data):
    state = _random_table(data)
    current = state.current_bid
    for action in liars.legal_actions(state, state.to_move):
        if action["type"] == "bid":
            assert 1 <= action["quantity"] <= state.total_dice
            if current is not None:
                assert bid_key(action["quantity"], action["face"]) > bid_key(
                    current.quantity, current.face
                )


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_challenge_removes_exactly_one_die_from_a_player_in_the_round(data):
    state = _random_table(data)
    assume(state.current_bid is not None)
    after, events = challenge(state)
    assert after.total_dice == state.total_dice - 1
    loser = events[0]["loser"]
    assert loser in (state.current_bid.seat, state.to_move)
    assert after.counts[loser] == state.counts[loser] - 1


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_count_matches_rules_1_4(data):
    state = _random_table(data)
    assume(state.current_bid is not None)
    _, events = challenge(state)
    b = state.current_bid
    dice = [d for hand in state.hands for d in hand]
    expected = dice.count(b.face)
    if b.face != 1 and state.ones_wild:
        expected += dice.count(1)
    assert events[0]["count"] == expected
