"""Liar's Dice computer players: they see only the view, pick only legal actions,
and ``prob`` computes exactly the probabilities of its definition."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from games.bots import kinds_for, make_bot
from games.bots.liars_dice import (
    HANDS,
    MATCH,
    StandardBot,
    _likelihood,
    _likelihood_exact,
    bid_probability,
    tail,
)
from games.fairness import DiceStream, simulated_seeds
from games.liars_dice import GAME as liars
from tests.games.test_liars_dice_rules import table

KINDS = [k for k in kinds_for("liars_dice") if k != "external"] + ["prob:0.3"]


def positions(n: int, seed: int, count: int = 40):
    """States where a player must decide, from a random playout."""
    rng = random.Random(seed)
    dice = DiceStream(*simulated_seeds(f"bots-{seed}", n))
    state = liars.initial_state(n)
    found = []
    while (turn := liars.turn(state)) is not None and len(found) < count:
        if turn.seat is None:
            action = {"type": "roll", "dice": dice.draw(turn.dice)}
        else:
            found.append(state)
            action = rng.choice(liars.legal_actions(state, turn.seat)[:12])
        state, _ = liars.apply(state, turn.seat, action)
    return found


def approx(fraction: Fraction) -> pytest.approx:
    return pytest.approx(float(fraction), abs=1e-12)


# ---- prob, by hand ------------------------------------------------------------------------


def test_prob_counts_own_dice_and_wild_ones_as_known():
    # Own 1,4,4,2,3: three count for 4s while 1s are wild; 5 unseen dice at p = 1/3.
    view = liars.view_for(table({0: "66666", 1: "14423"}, bids=[(0, 4, 4)]), 1)
    assert bid_probability(view, 3, 4) == 1.0
    assert bid_probability(view, 4, 4) == approx(1 - Fraction(2, 3) ** 5)
    assert bid_probability(view, 5, 4) == approx(
        1 - Fraction(2, 3) ** 5 - 5 * Fraction(1, 3) * Fraction(2, 3) ** 4
    )


def test_prob_counts_ones_alone_for_a_bid_on_ones():
    view = liars.view_for(table({0: "66666", 1: "14423"}, bids=[(0, 4, 4)]), 1)
    assert bid_probability(view, 2, 1) == approx(1 - Fraction(5, 6) ** 5)


def test_prob_uses_one_sixth_once_ones_are_not_wild():
    view = liars.view_for(table({0: "66666", 1: "14423"}, bids=[(0, 1, 1), (1, 2, 4)]), 1)
    assert view["ones_wild"] is False
    assert bid_probability(view, 3, 4) == approx(1 - Fraction(5, 6) ** 5)


def test_binomial_tail_by_hand():
    assert tail(3, 2, 2) == approx(3 * Fraction(1, 3) ** 2 * Fraction(2, 3) + Fraction(1, 27))
    assert tail(3, 0, 1) == 1.0 and tail(3, 4, 1) == 0.0


def test_prob_challenges_below_threshold():
    state = table({0: "66666", 1: "14423"}, bids=[(0, 7, 4)])  # P = 11/243
    view, legal = liars.view_for(state, 1), liars.legal_actions(state, 1)
    assert make_bot("liars_dice", "prob").choose(view, legal, random.Random(0)) == {
        "type": "challenge"
    }
    assert make_bot("liars_dice", "prob:0.01").choose(view, legal, random.Random(0))["type"] == (
        "bid"
    )


def test_prob_raises_with_the_most_likely_bid():
    # After 4 × 4: 5 × 4 needs two of five unseen dice; every other raise needs three.
    state = table({0: "66666", 1: "14423"}, bids=[(0, 4, 4)])
    action = make_bot("liars_dice", "prob").choose(
        liars.view_for(state, 1), liars.legal_actions(state, 1), random.Random(0)
    )
    assert action == {"type": "bid", "quantity": 5, "face": 4}


def test_prob_opens_with_its_best_bid_lowest_of_ties():
    state = table({0: "14423", 1: "66666"})
    action = make_bot("liars_dice", "prob").choose(
        liars.view_for(state, 0), liars.legal_actions(state, 0), random.Random(0)
    )
    assert action == {"type": "bid", "quantity": 1, "face": 2}


def test_prob_threshold_must_be_a_number():
    with pytest.raises(ValueError, match="prob:0.3"):
        make_bot("liars_dice", "prob:high")


# ---- standard's inference -----------------------------------------------------------------


def test_standard_believes_a_bidder_holds_the_face_they_bid():
    state = table({0: "22222", 1: "34566"}, bids=[(0, 3, 5)])
    post = StandardBot()._posteriors(liars.view_for(state, 1))[0]
    hands, prior = HANDS[5]
    fives = MATCH[5][(5, True)]

    def mean(weights):
        return sum(w * m for w, m in zip(weights, fives, strict=True))

    assert mean(post) > mean(prior) + 0.3


@pytest.mark.parametrize("beta", [10.0, 2.5, 40.0])
def test_the_bid_likelihood_summed_by_count_is_the_softmax_hand_by_hand(beta):
    """``_likelihood`` sums each face's softmax weight from a table by the
    number of matching dice; ``_likelihood_exact`` computes every hand's
    softmax on its own. They are the same model: any hand whose weight were
    looked up under the wrong count or face would differ here."""
    rng = random.Random(7)
    for _ in range(300):
        k = rng.randint(1, 5)
        total = rng.randint(k + 1, 30)
        wild = rng.random() < 0.6
        prev = None if rng.random() < 0.2 else (rng.randint(1, total - 1), rng.randint(2, 6), wild)
        quantity = 1 if prev is None else prev[0] + 1
        face = rng.randint(1, 6)
        args = (k, total, prev, quantity, face, wild, beta, 0.08, 0.3, 0.5)
        fast, exact = _likelihood.__wrapped__(*args), _likelihood_exact(*args)
        assert len(fast) == len(HANDS[k][0])
        assert fast == pytest.approx(exact, rel=1e-12)


def test_standard_challenges_an_impossible_bid():
    state = table({0: "22222", 1: "34566"}, bids=[(0, 9, 3)])
    action = make_bot("liars_dice", "standard").choose(
        liars.view_for(state, 1), liars.legal_actions(state, 1), random.Random(0)
    )
    assert action == {"type": "challenge"}


def test_standard_rejects_unknown_tuning_names():
    with pytest.raises(ValueError):
        make_bot("liars_dice", "standard:cheat=1")


# ---- every kind ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [2, 4, 6])
def test_no_choice_depends_on_dice_the_bot_cannot_see(kind, n):
    bot = make_bot("liars_dice", kind)
    redraw = random.Random(n)
    for state in positions(n, seed=n):
        seat = state.to_move
        legal = liars.legal_actions(state, seat)
        chosen = bot.choose(liars.view_for(state, seat), legal, random.Random(9))
        for _ in range(3):
            other = liars.with_hidden_redrawn(state, seat, redraw)
            again = bot.choose(liars.view_for(other, seat), legal, random.Random(9))
            assert again == chosen


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [2, 3, 6])
def test_bots_pick_only_legal_actions(kind, n):
    bot = make_bot("liars_dice", kind)
    rng = random.Random(1)
    for state in positions(n, seed=10 + n):
        legal = liars.legal_actions(state, state.to_move)
        assert bot.choose(liars.view_for(state, state.to_move), legal, rng) in legal


@pytest.mark.parametrize("kind", KINDS)
def test_bots_cope_with_one_die_each(kind):
    from games.simulate import simulate_record

    record = simulate_record(
        "liars_dice", [kind, "random", kind], seed=2, options={"dice_per_player": 1}
    )
    assert sorted(record["placings"]) == [0, 1, 2]
