"""Ludo computer players: smart's rule on hand-made positions, and every kind
choosing only legal actions."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.bots import make_bot
from games.bots.ludo import DEFAULT_WEIGHTS, chance_to_hit, hit_before_my_turn, hit_chance
from games.fairness import DiceStream, simulated_seeds
from games.ludo import GAME
from games.ludo_geometry import GEOMETRIES
from games.simulate import play_game, run_tournament


def deciding(tokens: dict[int, list[int]], rolls: list[int], n: int | None = None):
    """The view and legal actions of seat 0 after rolling ``rolls``."""
    n = n or max(2, max(tokens) + 1)
    state = GAME.initial_state(n, {})
    rows = tuple(tuple(tokens.get(s, [-1, -1, -1, -1])) for s in range(n))
    state = replace(state, tokens=rows)
    for value in rolls:
        state, _ = GAME.apply(state, 0, {"type": "roll", "dice": [value]})
    assert GAME.turn(state).seat == 0 and not GAME.turn(state).is_roll
    return GAME.view_for(state, 0), GAME.legal_actions(state, 0)


def choice(kind: str, tokens, rolls, n=None) -> int:
    view, legal = deciding(tokens, rolls, n)
    return make_bot("ludo", kind).choose(view, legal, random.Random(0))["token"]


def test_smart_brings_the_lowest_base_token_out():
    assert choice("smart", {0: [20, -1, 5, -1]}, [6, 1]) == 1


def test_smart_captures_the_most_progress():
    # Seat 1 (arm 2): token at progress 40 on square 14, token at 10 on square 36.
    tokens = {0: [10, 33, 56, 56], 1: [40, 10, -1, -1]}
    assert choice("smart", tokens, [4]) == 0  # 10 -> 14 takes 41 progress (40 -> -1)
    assert choice("smart", {0: [10, 33, 56, 56], 1: [40, 10, -1, -1]}, [3]) == 1  # 33 -> 36


def test_smart_takes_the_lowest_token_without_a_capture():
    assert choice("smart", {0: [30, 10, 20, -1]}, [2]) == 0


def test_smart_prefers_bringing_out_to_capturing():
    # A 6 could capture seat 1's token on square 16 (progress 42), but smart brings out.
    assert choice("smart", {0: [10, -1, 56, 56], 1: [42, -1, -1, -1]}, [6, 1]) == 1


def test_standard_captures_when_it_can():
    assert choice("standard", {0: [10, 33, 56, 56], 1: [40, -1, -1, -1]}, [4]) == 0


def test_standard_runs_from_a_token_just_behind():
    # Seat 1's token is 2 squares behind token 0 (square 20); token 1 is safe on a star.
    assert choice("standard", {0: [20, 21, -1, -1], 1: [44, -1, -1, -1]}, [5]) == 0


def test_standard_finishes_when_it_can():
    assert choice("standard", {0: [50, 10, 56, 56], 1: [30, -1, -1, -1]}, [6, 2]) == 0


@pytest.mark.parametrize("kind", ["random", "smart", "standard", "priority", "search"])
@pytest.mark.parametrize("n", [2, 4, 5])
def test_bots_choose_only_legal_actions(kind, n):
    bots = [make_bot("ludo", kind) for _ in range(n)]

    class Checked:
        def __init__(self, bot):
            self.bot = bot

        def choose(self, view, legal, rng):
            action = self.bot.choose(view, legal, rng)
            assert action in legal
            return action

    state, _ = play_game(
        GAME, [Checked(b) for b in bots], {}, DiceStream(*simulated_seeds(kind, n)),
        random.Random(n),
    )
    assert GAME.turn(state) is None


def test_priority_follows_its_order():
    # Capture first: 10 -> 14 takes seat 1's token (progress 40 on square 14), though
    # token 1 could enter the home column (48 -> 52).
    assert choice("priority", {0: [10, 48, -1, 56], 1: [40, -1, -1, -1]}, [4]) == 0
    # Leave base beats the home column and the furthest token.
    assert choice("priority", {0: [10, 48, -1, 56]}, [6, 1]) == 2
    # Entering the home column (48 -> 51) beats moving the furthest (52, already in it).
    assert choice("priority", {0: [10, 48, 52, 56]}, [3]) == 1
    # Escape: token 0 (square 20) has seat 1's token 2 squares behind; else furthest.
    assert choice("priority", {0: [20, 30, -1, -1], 1: [44, -1, -1, -1]}, [5]) == 0
    assert choice("priority", {0: [20, 30, -1, -1]}, [5]) == 1


def test_search_takes_the_capture():
    assert choice("search", {0: [10, 33, 56, 56], 1: [40, -1, -1, -1]}, [4]) == 0


def test_search_brings_the_last_token_home():
    # Token 0 needs exactly 2 to finish the game; token 1 could wander on.
    assert choice("search", {0: [54, 10, 56, 56], 1: [30, -1, -1, -1]}, [2]) == 0


def test_search_reads_only_the_view_and_is_deterministic():
    view, legal = deciding({0: [20, 21, 5, -1], 1: [44, 15, -1, -1], 2: [3, -1, -1, -1]}, [6, 3])
    bot = make_bot("ludo", "search")
    frozen = repr(view)
    picks = {bot.choose(view, legal, random.Random(seed))["token"] for seed in range(3)}
    assert len(picks) == 1 and repr(view) == frozen  # no randomness, the view untouched
    fresh = make_bot("ludo", "search").choose(view, legal, random.Random(0))
    assert fresh["token"] in picks


def test_search_records_are_reproducible():
    from games.simulate import simulate_record

    first = simulate_record("ludo", ["search", "priority", "search"], seed="det", index=1)
    again = simulate_record("ludo", ["search", "priority", "search"], seed="det", index=1)
    assert first["events"] == again["events"]


def test_tournament_credits_the_winners_kind():
    # smart beats random often enough that crediting the wrong seat would show.
    result = run_tournament("ludo", ["smart", "random", "random", "random"], 80, workers=1)
    assert result.wins.get("smart", 0) > 30


def test_standard_safe_weight_prefers_a_safe_square():
    # A 5 takes token 0 from 20 to 25 or token 1 from 3 to the star (8): the same
    # progress, no opponent on the board; only the safe-square weight tells them apart.
    tokens = {0: [20, 3, -1, -1]}
    assert choice("standard:safe=0", tokens, [5]) == 0  # a tie goes to the lowest token
    assert choice("standard:safe=5", tokens, [5]) == 1


def test_standard_counts_squares_inside_the_home_column_for_less():
    # A 2 takes token 0 from the first square of its home column (51) to 53, or
    # token 1 from 10 to 12 on the loop: the same two squares, nobody in reach.
    # From either column square one exact roll brings token 0 home: with the
    # column's squares counted for less (``stretch``) the loop token's count more.
    tokens = {0: [51, 10, -1, -1]}
    assert choice("standard", tokens, [2]) == 0  # a tie goes to the lowest token
    assert choice("standard:stretch=0.5", tokens, [2]) == 1
    assert choice("standard:stretch=0", tokens, [2]) == 1


def test_search_takes_the_evaluation_weights():
    bot = make_bot("ludo", "search:safe=5,risk=1.5")
    assert bot.w["safe"] == 5 and bot.w["risk"] == 1.5 and bot.w["out"] == DEFAULT_WEIGHTS["out"]
    for unknown in ("search:depth=3", "search:budget=100"):
        with pytest.raises(ValueError):
            make_bot("ludo", unknown)


def test_search_looks_at_the_next_roll():
    # Tokens on the start square (0) and the star (8), nobody else on the board; a 5.
    # standard takes the star's token to the next start square (13): both stay on
    # safe squares. Then every roll of the next turn must take one of them off
    # again. search moves the other to 5 instead, from where a 3 reaches the star.
    tokens = {0: [0, 8, 56, 56]}
    assert choice("standard", tokens, [5]) == 1
    assert choice("search", tokens, [5]) == 0


def test_search_weighs_the_next_roll_sequences_by_their_chance():
    # Only my own squares count (every other weight 0) and one token can move: the
    # next turn gains r with 1/6 each, 6 + r with 1/36 each, 6 6 r as a 6 r (5/216
    # in all, counted as their mean) and nothing after three 6s.
    bot = make_bot("ludo", "search:out=0,bonus=0,risk=0,threat=0,opp=0,lead=0,safe=0")
    geo = GEOMETRIES["square"]
    tokens = ((10, 56, 56, 56), (-1, -1, -1, -1))
    gain = sum(range(1, 6)) / 6 + (5 / 36 + 5 / 216) * (6 + 3)
    assert bot._next_turn(geo, (0, 2), tokens, 0, False, True) == pytest.approx(
        10 + 3 * 56 + gain)


# The chance of being hit (standard's danger): a turn is r, 6 r or 6 6 r (r = 1..5).
ONE_ROLL = 1 / 6 + 1 / 36 + 1 / 216  # r itself, after one 6, after two 6s


def test_hit_chance_of_one_token_behind():
    assert hit_chance(1 << 3, 0) == pytest.approx(ONE_ROLL)  # a 3, whatever came before
    assert hit_chance(1 << 6, 0) == pytest.approx(5 / 36 + 5 / 216)  # 6 r, 6 6 r
    assert hit_chance(1 << 9, 0) == pytest.approx(1 / 36 + 1 / 216)  # 6 3, 6 6 3
    assert hit_chance(1 << 12, 0) == pytest.approx(5 / 216)  # 6 6 r
    assert hit_chance(1 << 19, 0) == 0


def test_hit_chance_counts_each_roll_once():
    # Tokens 1 and 2 behind: a 1 or a 2 hits (never both); not the sum of two 1/6s
    # multiplied out as if they were separate chances.
    assert hit_chance((1 << 1) | (1 << 2), 0) == pytest.approx(2 * ONE_ROLL)
    # 3 and 9 behind: 6 3 hits either way, counted once.
    assert hit_chance((1 << 3) | (1 << 9), 0) == pytest.approx(ONE_ROLL)


def test_hit_chance_from_base_needs_a_six_first():
    assert hit_chance(0, 3) == pytest.approx(1 / 36 + 1 / 216)  # 6 3, 6 6 3
    assert hit_chance(0, 7) == pytest.approx(1 / 216)  # 6 6 1: out, then 6 + 1
    assert hit_chance(0, 13) == 0


def test_hit_before_my_turn_on_a_constructed_position():
    tables = GEOMETRIES["square"].tables
    arms = (0, 1, 2, 3)
    # Seat 0's token on square 20. Seat 1 (start square 13) has a token 3 behind
    # (progress 4, square 17) and tokens in base 7 squares behind; seat 2 (start 26)
    # a token 3 behind (progress 43, square 17); seat 3 nothing in reach.
    tokens = ((20, -1, -1, -1), (4, -1, -1, -1), (43, 56, 56, 56), (10, 56, 56, 56))
    seat1 = hit_chance(1 << 3, 7)
    seat2 = hit_chance(1 << 3, 0)
    assert seat1 == pytest.approx(ONE_ROLL + 1 / 216)  # from base: 6 6 1
    expected = 1 - (1 - seat1) * (1 - seat2)
    assert hit_before_my_turn(tables, arms, tokens, 0, 20) == pytest.approx(expected)
    # On its star (square 8) nothing hits it, though seat 3's token is 11 behind.
    assert hit_before_my_turn(tables, arms, tokens, 0, 8) == 0


def test_chance_to_hit_reads_a_seats_tokens_and_base():
    tables = GEOMETRIES["square"].tables
    # Arm 0 (start square 0): a token on square 10 is 4 behind square 14.
    assert chance_to_hit(tables, 0, (10, -1, -1, -1), 14) == pytest.approx(ONE_ROLL)
    # From base only: a 6 out onto square 0, then 5 (6 5, 6 6 5).
    assert chance_to_hit(tables, 0, (-1, -1, -1, -1), 5) == pytest.approx(1 / 36 + 1 / 216)
    # Square 40 is beyond the reach of both.
    assert chance_to_hit(tables, 0, (10, -1, -1, -1), 40) == 0
