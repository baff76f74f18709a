"""Ludo ``search``: expectimax over the dice, on the engine's own rules.

The state is rebuilt from the seat's view (nothing in Ludo is hidden; the view is
all a bot reads) and every step goes through ``games.ludo.GAME.legal_actions`` and
``GAME.apply``, so sixes, three-6s, exact rolls home, captures, safe squares and
bonus sequences are the engine's, never re-implemented here.

- My moves: a max over every legal token for each roll of the known sequence.
- My bonus sequence (earned by a capture or a token home): a chance node over the
  die, 1 to 6, with 6s rolling again and a third 6 voiding the sequence (the
  engine decides that); searched one bonus deep, deeper bonuses are scored by the
  evaluation's bonus weight.
- The next opponent's turn: a chance node over its first roll (1..5, and a 6
  followed by 1..5), the opponent playing the ``priority`` rule, its own bonus
  sequences scored by the evaluation.
- Leaves are scored by ``standard``'s evaluation (progress, tokens out, the chance
  of being hit and of hitting, the opponents' progress).

No randomness: the same view gives the same move.
"""

from __future__ import annotations

from ..ludo import GAME, MOVE, LudoState
from ..ludo_geometry import GEOMETRIES
from . import Bot, register
from .ludo import DEFAULT_WEIGHTS, StandardBot
from .ludo_priority import priority_token

WIN = 1e6


class _OverBudget(Exception):
    pass


def state_from_view(view) -> LudoState:
    seats = view["seats"]
    return LudoState(
        board=view["board"],
        arms=tuple(s["arm"] for s in seats),
        tokens=tuple(tuple(s["tokens"]) for s in seats),
        to_move=view["to_move"],
        pending=view["pending"],
        rolls=tuple(view["rolls"]),
        used=view["used"],
        movable=tuple(view["movable"]),
        bonus=view["bonus"],
        sequence=view["sequence"],
        home_bonus_roll=view["home_bonus_roll"],
        placings=tuple(view["placings"]),
    )


def _distinct(state, seat):
    """Movable tokens, one per progress value: tokens standing together move alike."""
    seen, out = set(), []
    for t in state.movable:
        p = state.tokens[seat][t]
        if p not in seen:
            seen.add(p)
            out.append(t)
    return out


def _roll(state, seat, value):
    return GAME.apply(state, seat, {"type": "roll", "dice": [value]})[0]


def _move(state, seat, token):
    return GAME.apply(state, seat, {"type": "move", "token": token})[0]


class SearchBot(Bot):
    kind = "search"

    def __init__(self, reply: bool = True, bonus_depth: int = 1, budget: int = 300,
                 weights: dict[str, float] | None = None) -> None:
        self.reply = reply
        self.budget = budget
        self.bonus_depth = bonus_depth
        self.evaluator = StandardBot(weights)

    @classmethod
    def from_param(cls, param: str | None) -> SearchBot:
        options = dict(item.partition("=")[::2] for item in (param or "").split(",") if item)
        # The search's own options, then the evaluation's weights (standard's names).
        unknown = set(options) - {"reply", "bonus", "budget"} - set(DEFAULT_WEIGHTS)
        if unknown:
            raise ValueError(f"unknown search option {sorted(unknown)[0]!r}")
        return cls(
            reply=options.get("reply", "1") != "0",
            bonus_depth=int(options.get("bonus", "1")),
            budget=int(options.get("budget", "300")),
            weights={k: float(v) for k, v in options.items() if k in DEFAULT_WEIGHTS},
        )

    def choose(self, view, legal, rng):
        if len(legal) == 1:
            return legal[0]
        state = state_from_view(view)
        me = view["to_move"]
        self._geo = GEOMETRIES[state.board]
        # Deeper passes replace shallower ones when they finish within the budget of
        # leaves (a count, not a clock: the same view always gives the same move):
        # my sequence alone; then my bonus sequence rolled; then the next opponent's
        # reply too.
        scores = None
        for bonus_depth, reply in ((0, False), (self.bonus_depth, False),
                                   (self.bonus_depth, self.reply)):
            if scores is not None and not (bonus_depth or reply):
                continue
            self._reply_ok, self._leaves = reply, 0
            self._limit = None if scores is None else self.budget
            try:
                scores = self._scores(state, me, legal, bonus_depth)
            except _OverBudget:
                break
        best, best_score = None, None
        for action, score in scores:
            if best_score is None or score > best_score + 1e-9:
                best, best_score = action, score
        return best

    def _scores(self, state, me, legal, bonus_depth):
        out, seen = [], set()
        for action in sorted(legal, key=lambda a: a["token"]):
            p = state.tokens[me][action["token"]]
            if p in seen:
                continue
            seen.add(p)
            out.append((action, self._after_mine(_move(state, me, action["token"]), me,
                                                 bonus_depth)))
        return out

    # ---- the tree ------------------------------------------------------------

    def _after_mine(self, state, me, bonus_left):
        """Value of ``state`` reached by one of my moves."""
        if me in state.placings:
            return WIN
        if state.to_move == me:
            if state.pending == MOVE:
                return max(
                    self._after_mine(_move(state, me, t), me, bonus_left)
                    for t in _distinct(state, me)
                )
            # A bonus sequence earned: roll it, or score the bonus.
            if bonus_left <= 0:
                return self._evaluate(state, me, bonus=True)
            return self._my_roll(state, me, bonus_left - 1)
        if state.over:
            return self._evaluate(state, me, bonus=False)
        if self.reply and self._reply_ok:
            return self._reply(state, me)
        return self._evaluate(state, me, bonus=False)

    def _my_roll(self, state, me, bonus_left):
        # Inside a bonus sequence the opponent's reply is left to the evaluation:
        # rolling it too would multiply the tree by 11 for a rarer branch.
        saved, self._reply_ok = self._reply_ok, False
        try:
            return self._my_roll_inner(state, me, bonus_left)
        finally:
            self._reply_ok = saved

    def _my_roll_inner(self, state, me, bonus_left):
        total = 0.0
        for value in range(1, 7):
            after = _roll(state, me, value)
            if after.to_move == me and after.pending != MOVE:  # a 6: roll again
                total += self._my_roll_inner(after, me, bonus_left)
            elif after.to_move == me:
                total += self._after_mine(after, me, bonus_left)
            else:  # no token could use it: the turn is over
                total += self._evaluate(after, me, bonus=False)
        return total / 6

    def _reply(self, state, me):
        """Expected value over the next opponent's first roll(s), it playing priority."""
        opp = state.to_move
        total = 0.0
        for value in range(1, 6):
            total += self._opponent_plays(_roll(state, opp, value), me, opp)
        six = _roll(state, opp, 6)
        sub = 0.0
        for value in range(1, 6):
            sub += self._opponent_plays(_roll(six, opp, value), me, opp)
        total += sub / 5
        return total / 6

    def _opponent_plays(self, state, me, opp):
        geo = self._geo
        while state.to_move == opp and state.pending == MOVE:
            roll = state.rolls[state.used]
            token = priority_token(geo, state.arms, state.tokens, opp, roll, state.movable)
            state = _move(state, opp, token)
        return self._evaluate(state, me, bonus=False)

    def _evaluate(self, state, me, bonus):
        self._leaves += 1
        if self._limit is not None and self._leaves > self._limit:
            raise _OverBudget
        if me in state.placings:
            return WIN
        return self.evaluator._evaluate(self._geo, state.arms, state.tokens, me, bonus)


register("ludo", "search", SearchBot.from_param)
