"""``search``: Liar's Dice by sampled determinizations (issue #17), from the view alone.

Where ``standard`` would use its heuristic (outside the solved heads-up table),
``search`` keeps its Bayesian reading of the bids (each opponent's hand weighted by
how likely it was to make the bids it made this round) and then *plays the round
out*: it draws the opponents' hands from those posteriors (``SAMPLES`` deals, the
same deals for every candidate, so candidates are compared on equal luck), and for
each candidate (challenging, or one of the ``SHORTLIST`` raises ``standard`` values
most) plays the rest of the round in every deal with a fixed quick policy for everyone
(itself included): challenge a bid your own dice make less likely than even,
otherwise raise to the cheapest bid on the face your own dice believe most. A
deal ends at a challenge (who loses the die is known, every hand being dealt) or
after ``DEPTH`` further decisions, when the round is scored as ``standard`` scores
a raise that is not challenged (the chance of losing the die later: 1/2 heads-up,
``CONT``/players otherwise). It plays the candidate least likely to lose a die.

In a solved heads-up position (``TABLE``) it plays the table, like ``standard``.
The work is a count, not a clock: ``SAMPLES`` x candidates x ``DEPTH`` decisions at
most, so a game is reproducible from its seed (the deals use the game's rng).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from . import register
from .liars_dice import (
    FACES,
    HANDS,
    StandardBot,
    _challenge,
    _cheapest,
    success_sixths,
    tail,
    wild_after,
)


def _count(hand: tuple[int, ...], face: int, wild: bool) -> int:
    """How many dice of ``hand`` (face counts, index 1..6) count for ``face``."""
    return hand[face] + (hand[1] if wild and face != 1 else 0)


class SearchBot(StandardBot):
    kind = "search"
    SAMPLES = 48
    DEPTH = 4
    SHORTLIST = 4
    TABLE = 3  # as standard: the rest of the table costs against prob (docs/bots.md)
    TUNABLE = (*StandardBot.TUNABLE, "SAMPLES", "DEPTH", "SHORTLIST")

    def __init__(self, param: str | None = None) -> None:
        rest = []
        for item in filter(None, (param or "").split(",")):
            key, _, value = item.partition("=")
            if key.strip().upper() in ("SAMPLES", "DEPTH", "SHORTLIST"):
                setattr(self, key.strip().upper(), int(value))
            else:
                rest.append(item)
        super().__init__(",".join(rest) or None)

    def choose(self, view, legal, rng):
        settled = self.settled(view, legal, rng)
        if settled is not None:
            return settled
        challenge = _challenge(legal)
        counts = view["dice_counts"]
        seat, total = view["seat"], view["total_dice"]
        n = len(counts)
        order = [(seat + step) % n for step in range(n) if counts[(seat + step) % n]]
        alive = len(order)
        cont_loss = 0.5 if alive == 2 else min(0.9, self.CONT / alive)
        mine = [0] * 7
        for die in view["my_dice"] or []:
            mine[die] += 1
        posts = self._posteriors(view)
        scored, challenge_value = self.scored_actions(view, legal, rng, posts)
        cumulative = {s: list(accumulate(weights)) for s, weights in posts.items()}
        deals = []
        for _ in range(self.SAMPLES):
            hands = {seat: tuple(mine)}
            for s, cum in cumulative.items():
                i = min(bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)
                hands[s] = HANDS[counts[s]][0][i]
            deals.append(hands)
        wild = view["ones_wild"]
        scored.sort(key=lambda pair: -pair[0])
        candidates = [action for _, action in scored[: self.SHORTLIST]]
        best, best_loss = None, 2.0
        if challenge is not None:  # exact under the posteriors: no deal needed
            best, best_loss = challenge, 1.0 - challenge_value
        for action in candidates:
            q, f = action["quantity"], action["face"]
            w = wild_after(wild, f)
            loss = 0.0
            for deal in deals:
                loss += self._play_out(deal, order, total, q, f, w, cont_loss)
            loss /= len(deals)
            if loss < best_loss - 1e-12:
                best, best_loss = action, loss
        return best

    def _play_out(self, deal, order, total, q, f, wild, cont_loss) -> float:
        """My chance of losing the die once I have bid q x f, in one deal: everyone
        plays the quick policy for up to DEPTH decisions."""
        me = order[0]
        bidder = me
        turn = 1
        for _ in range(self.DEPTH):
            s = order[turn % len(order)]
            hand = deal[s]
            unseen = total - sum(hand)
            own = _count(hand, f, wild)
            if tail(unseen, q - own, success_sixths(f, wild)) < 0.5:
                good = sum(_count(h, f, wild) for h in deal.values()) >= q
                loser = s if good else bidder
                return 1.0 if loser == me else 0.0
            # Raise: the cheapest bid on the face its own dice believe most.
            best = None
            for g in FACES:
                qg = _cheapest((q, f, wild), g)
                if qg > total:
                    continue
                wg = wild_after(wild, g)
                belief = tail(unseen, qg - _count(hand, g, wg), success_sixths(g, wg))
                if best is None or belief > best[0]:
                    best = (belief, qg, g, wg)
            if best is None:  # nothing left to bid: it must challenge
                good = sum(_count(h, f, wild) for h in deal.values()) >= q
                loser = s if good else bidder
                return 1.0 if loser == me else 0.0
            _, q, f, wild = best
            bidder = s
            turn += 1
        # Unresolved: the round goes on; scored as standard scores a raise that is
        # not challenged (someone may still make me lose the die).
        return cont_loss


def _factory(param: str | None) -> SearchBot:
    return SearchBot(param)


register("liars_dice", "search", _factory)
