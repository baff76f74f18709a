"""Ludo ``priority``: a baseline heuristic written from its one-line description
(issue #17): capture > leave base > enter the home column > escape danger > move the
furthest token.

It looks at the current roll only. Among the legal moves it takes the first rule
that applies: a move that captures (the one taking the most progress away); a 6
bringing a token out of base (the lowest token); a move from the loop into the home
column or home (the furthest such token); a move taking a token that stands in
danger (on an unsafe loop square with an opponent token 1 to 6 squares behind it)
to a square where it is not in danger (the furthest such token); otherwise the
furthest token that can move. Ties go to the lowest token. It reads only the view.
"""

from __future__ import annotations

from ..ludo_geometry import BASE, GEOMETRIES
from . import Bot, register


def in_danger(geo, arms, tokens, seat: int, p: int) -> bool:
    """Whether ``seat``'s token at progress ``p`` stands where an opponent token
    could hit it with one roll (1 to 6 squares behind it on the loop)."""
    if p < 0 or p > geo.last:
        return False
    tables = geo.tables
    square = tables.square[arms[seat]][p + 1]
    if not tables.unsafe[square]:
        return False
    for other, arm in enumerate(arms):
        if other == seat:
            continue
        there = tables.progress[arm][square]
        if there < 0:
            continue
        for q in tokens[other]:
            if 0 <= q < there and there - q <= 6:
                return True
    return False


def captured_progress(geo, arms, tokens, seat: int, end: int) -> int:
    """Total progress (+1 per token) of opponents' tokens a move ending at ``end``
    would send back to base; 0 when it captures nothing."""
    if not 0 < end <= geo.last:
        return 0
    tables = geo.tables
    square = tables.square[arms[seat]][end + 1]
    if not tables.unsafe[square]:
        return 0
    total = 0
    for other, arm in enumerate(arms):
        if other == seat:
            continue
        there = tables.progress[arm][square]
        if there >= 0:
            total += sum(there + 1 for q in tokens[other] if q == there)
    return total


def priority_token(geo, arms, tokens, seat: int, roll: int, movable) -> int:
    """The token the priority rule moves with ``roll`` among ``movable``."""
    mine = tokens[seat]
    moves = sorted(movable)

    def end_of(t):
        p = mine[t]
        return 0 if p == BASE else p + roll

    # max() keeps the first of equals: moves are sorted by token.
    captures = [(captured_progress(geo, arms, tokens, seat, end_of(t)), t) for t in moves]
    captures = [(v, t) for v, t in captures if v > 0]
    if captures:
        return max(captures, key=lambda vt: vt[0])[1]
    out = [t for t in moves if mine[t] == BASE]
    if out:
        return out[0]
    column = [t for t in moves if mine[t] <= geo.last < end_of(t)]
    if column:
        return max(column, key=lambda t: mine[t])
    escapes = [
        t for t in moves
        if in_danger(geo, arms, tokens, seat, mine[t])
        and not in_danger(geo, arms, tokens, seat, end_of(t))
    ]
    if escapes:
        return max(escapes, key=lambda t: mine[t])
    return max(moves, key=lambda t: mine[t])


class PriorityBot(Bot):
    kind = "priority"

    def choose(self, view, legal, rng):
        if len(legal) == 1:
            return legal[0]
        geo = GEOMETRIES[view["board"]]
        arms = tuple(s["arm"] for s in view["seats"])
        tokens = tuple(tuple(s["tokens"]) for s in view["seats"])
        seat = view["to_move"]
        roll = view["rolls"][view["current"]]
        token = priority_token(geo, arms, tokens, seat, roll, [a["token"] for a in legal])
        return next(a for a in legal if a["token"] == token)


register("ludo", "priority", lambda param: PriorityBot())
