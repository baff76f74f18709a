"""``search`` (games/bots/ld_search.py): Liar's Dice by sampled determinizations."""

from __future__ import annotations

import random

import pytest

from games.bots import make_bot
from games.bots.ld_search import SearchBot
from games.bots.liars_dice import StandardBot, endgame_strategy
from games.liars_dice import GAME as liars
from games.simulate import DecisionTimer, simulate_record
from tests.games.test_liars_dice_rules import table


def _decide(spec, state, seed=0):
    seat = state.to_move
    view, legal = liars.view_for(state, seat), liars.legal_actions(state, seat)
    action = make_bot("liars_dice", spec).choose(view, legal, random.Random(seed))
    assert action in legal
    return action


def test_search_challenges_a_bid_no_deal_can_make_true():
    # Twelve dice in all, I hold no 6 and no 1: 11 x 6 needs eleven of the other
    # nine dice. Every sampled deal loses it, so challenging is the least loss.
    state = table({0: "222", 1: "33333", 2: "4444"}, bids=[(1, 11, 6)], to_move=2)
    assert _decide("search", state) == {"type": "challenge"}


def test_search_raises_rather_than_challenging_a_bid_its_own_dice_make_true():
    # I hold four 5s (1s wild): "3 x 5" is true whatever the others hold.
    state = table({0: "222", 1: "33333", 2: "5515"}, bids=[(1, 3, 5)], to_move=2)
    assert _decide("search", state)["type"] == "bid"


@pytest.mark.parametrize("seed", range(3))
def test_search_plays_only_from_standards_shortlist(seed):
    """The raises it considers are the SHORTLIST that standard values most (the
    same rng draws give the same noise), or a challenge."""
    state = table({0: "2263", 1: "31565", 2: "4416", 3: "12"}, bids=[(3, 2, 4)], to_move=0)
    view, legal = liars.view_for(state, 0), liars.legal_actions(state, 0)
    scored, _ = StandardBot().scored_actions(view, legal, random.Random(seed))
    shortlist = [a for _, a in sorted(scored, key=lambda pair: -pair[0])[:2]]
    bot = SearchBot("SHORTLIST=2,SAMPLES=16")
    rng = random.Random(seed)
    action = bot.choose(view, legal, rng)
    assert action == {"type": "challenge"} or action in shortlist


def test_search_plays_the_solved_table_in_small_heads_up_endgames():
    state = table({0: "35", 1: "4"}, bids=[(0, 1, 5)])
    view = liars.view_for(state, 1)
    support = {code for code, _ in endgame_strategy(view)}
    for seed in range(10):
        action = _decide("search", state, seed)
        code = -1 if action["type"] == "challenge" else (
            (action["quantity"] - 1) * 6 + (2, 3, 4, 5, 6, 1).index(action["face"]))
        assert code in support


def test_search_takes_its_parameters_and_refuses_unknown_ones():
    bot = make_bot("liars_dice", "search:SAMPLES=8,DEPTH=2,BETA=8")
    assert (bot.SAMPLES, bot.DEPTH, bot.BETA) == (8, 2, 8.0)
    with pytest.raises(ValueError):
        make_bot("liars_dice", "search:NOPE=1")


def test_games_with_search_are_reproducible_and_its_work_is_bounded():
    timer = DecisionTimer()
    options = {"dice_per_player": 3}
    players = ["search", "bayes", "bayes"]
    first = simulate_record("liars_dice", players, seed=7, timer=timer, options=options)
    again = simulate_record("liars_dice", players, seed=7, options=options)
    assert first["events"] == again["events"]
    assert len(timer.samples) > 0
