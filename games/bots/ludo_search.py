"""Ludo ``search``: ``standard``'s plan for this roll sequence, then an expectation
over my next one.

``standard`` scores where its sequence ends with a static evaluation. ``search``
looks one roll sequence further, over the dice:

- For each token the current roll may move, the rest of the sequence is played
  as ``standard`` plans it (the later rolls are known: they were rolled first).
- From where that sequence ends, every roll sequence of my next turn is weighed
  by its probability: r (1/6 each, r = 1..5), 6 r (1/36 each), 6 6 r (1/216
  each, valued as the mean of the 6 r sequences: a second 6 changes little and
  would multiply the work by four) and three 6s (1/216: nothing moves). Each is
  played by ``standard``'s plan and its end scored by ``standard``'s evaluation.
- Unless this sequence earned a bonus one (I roll again before anyone moves),
  the opponents move in between: the progress I expect to lose to them before
  my next turn is subtracted (``standard``'s chance of being hit, counted once
  here, for the positions between the two turns).

So what a move leaves for the next roll counts: a token that needs an exact
count to get home, a capture the next roll can make rather than a chance of one,
a 6 with somewhere useful to go. The opponents' own moves are left to the
evaluation's terms, as in ``standard``; no opponent is modelled as any kind.

No randomness and no clock: the work is fixed by the position (one plan per
first token and per next sequence, evaluations shared within a decision), so a
record replays and the same view gives the same move. ``search:name=value,...``
takes ``standard``'s weight names (``games/bots/ludo.py``).
"""

from __future__ import annotations

from . import register
from .ludo import StandardBot, _legal, _read

WIN = 1e6

# My next turn's roll sequences: r and 6 r (r = 1..5) played out; 6 6 r valued
# as the mean of the 6 r; three 6s move nothing.
ONE_ROLL = tuple((r,) for r in range(1, 6))  # 1/6 each
AFTER_A_SIX = tuple((6, r) for r in range(1, 6))  # 1/36 each
AFTER_TWO_SIXES = 5 / 216  # in all
THREE_SIXES = 1 / 216


class SearchBot(StandardBot):
    kind = "search"

    def __init__(self, weights: dict[str, float] | None = None) -> None:
        super().__init__(weights)
        self._scores: dict = {}  # evaluations shared by every branch of one decision

    def choose(self, view, legal, rng):
        if len(legal) == 1:
            return legal[0]
        geo, arms, tokens = _read(view)
        me = view["to_move"]
        rolls = view["rolls"][view["current"] :]
        self._scores = {}
        best, best_value, seen = None, None, set()
        for action in sorted(legal, key=lambda a: a["token"]):
            p = tokens[me][action["token"]]
            if p in seen:  # tokens standing together move alike
                continue
            seen.add(p)
            end = self._plan_end(geo, arms, tokens, me, action["token"], rolls,
                                 view["bonus"], view["home_bonus_roll"])
            if end is None:
                value = WIN
            else:
                value = self._next_turn(geo, arms, end[0], me, end[1], view["home_bonus_roll"])
            if best_value is None or value > best_value + 1e-9:
                best, best_value = action, value
        return best

    def _next_turn(self, geo, arms, tokens, me, bonus, home_bonus):
        """Expected value of my next roll sequence from ``tokens``, each played by
        ``standard``'s plan, less what I expect to lose before it."""
        here = self._evaluate(geo, arms, tokens, me, False)

        def best(rolls):
            movable = _legal(tokens[me], rolls[0], geo.home)
            if not movable:  # the first roll moves nothing: the turn ends here
                return here
            return max(self._plan(geo, arms, tokens, me, t, rolls, False, home_bonus)
                       for t in movable)

        one_roll = sum(best(rolls) for rolls in ONE_ROLL) / 6
        after_a_six = sum(best(rolls) for rolls in AFTER_A_SIX) / 5  # their mean
        value = one_roll + (5 / 36 + AFTER_TWO_SIXES) * after_a_six + THREE_SIXES * here
        if bonus:
            # That was a bonus sequence, rolled before anyone moves: my next turn
            # still comes after it, worth what the evaluation gives a bonus.
            return value + self.w["bonus"]
        return value - self.w["risk"] * self._exposure(geo, arms, tokens, me)[1]

    def _evaluate(self, geo, arms, tokens, me, bonus):
        key = (tokens, bonus)
        score = self._scores.get(key)
        if score is None:
            score = self._scores[key] = super()._evaluate(geo, arms, tokens, me, bonus)
        return score


# ``StandardBot.from_param`` builds ``cls``: the same weight names, checked the same way.
register("ludo", "search", SearchBot.from_param)
