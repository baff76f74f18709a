"""Ludo computer players: ``smart`` (a fixed greedy rule) and ``standard``.

Both read only the view (every token's progress, the rolls of the sequence, the
movable tokens) and the legal actions, like a human at the table.

``smart``: bring a token out of base when a 6 allows it (the lowest such token);
otherwise take the move that maximises own total progress minus the opponents'
total progress after the move, captures included. A token in base counts as
progress -1 (the progress value the engine uses). Ties go to the lowest token.

``standard``: plans the rest of its roll sequence (the later rolls are known:
they were rolled before the first move), trying every order of tokens, and scores
the end positions with a weighted evaluation: progress, tokens out of base, the
safety of the home column, tokens on safe squares, a bonus sequence earned, the
chance that opponents hit an exposed token before its next turn
(``hit_before_my_turn``: every opponent's possible roll sequences, all its tokens
behind it and those it can bring out, each roll counted once), the chance of
hitting theirs (the same count, from my side), and the opponents' progress (the
leader weighted most). The weights were tuned by
tournaments, first against ``smart`` (bench/bench_ludo.py), then ``risk`` and
``safe`` against ``priority`` (bench/tune_ludo.py, docs/bots.md), then ``threat``
on paired games (bench/compare_ludo.py): the tokens it could hit move before it
does, and chasing them cost more than it won; ``standard:name=value,...``
overrides them for tuning.
"""

from __future__ import annotations

from functools import cache

from ..ludo_geometry import BASE, GEOMETRIES
from . import Bot, register


def _roll_sequences():
    """Every roll sequence of a turn that moves (a third 6 voids it), with its
    probability: (r), (6, r), (6, 6, r) for r = 1..5."""
    for sixes in range(3):
        for last in range(1, 6):
            yield (6,) * sixes + (last,), (1 / 6) ** (sixes + 1)


def _sums(rolls):
    """Distances one token can cover with some of ``rolls`` (it lands after its last
    roll; the other rolls go to other tokens)."""
    sums = {0}
    for r in rolls:
        sums |= {s + r for s in sums}
    sums.discard(0)
    return sums


def _sequence_masks():
    """For each sequence: a bitmask of the distances a token on the loop can cover,
    of those a token in base can cover (a 6 spent to come out onto its start
    square, then some of the rest), and the sequence's probability."""
    masks = []
    for rolls, prob in _roll_sequences():
        rest = list(rolls)
        if 6 in rest:
            rest.remove(6)
            from_base = sum(1 << d for d in _sums(rest))
        else:
            from_base = 0
        masks.append((sum(1 << d for d in _sums(rolls)), from_base, prob))
    return tuple(masks)


SEQUENCES = _sequence_masks()


@cache
def hit_chance(behind: int, from_base: int) -> float:
    """Probability that one opponent hits a token during its next turn, if it takes
    every capture its rolls allow (a generic opponent, not any kind in particular;
    every roll is assumed to find a token to move). ``behind`` is a bitmask of the distances (1..18)
    at which its tokens stand behind the token on the loop; ``from_base`` is the
    distance from its start square to the token (0 when it has no token in base or
    the token is out of its reach from the start). Cached: few patterns occur."""
    base_bit = 1 << from_base if from_base else 0
    return sum(prob for loop, base, prob in SEQUENCES if loop & behind or base & base_bit)


def chance_to_hit(tables, arm: int, tokens, square: int) -> float:
    """Probability that the seat on ``arm`` with ``tokens`` lands on loop ``square``
    in its next turn (``hit_chance``: its tokens behind the square, and one it can
    bring out onto its start square if the square is in reach from there)."""
    there = tables.progress[arm][square]  # how far the square is from its start
    if there < 0:
        return 0.0
    behind = 0
    for q in tokens:
        if 0 <= q < there and there - q <= 18:
            behind |= 1 << (there - q)
    from_base = there if there <= 18 and BASE in tokens else 0
    return hit_chance(behind, from_base) if behind or from_base else 0.0


def hit_before_my_turn(tables, arms, tokens, me: int, square: int) -> float:
    """Probability that my token on loop ``square`` is hit before my next turn:
    every opponent moves once before it, each one capturing whenever its rolls allow
    (``chance_to_hit``), independently of the others. None on a safe square."""
    if not tables.unsafe[square]:
        return 0.0
    safe = 1.0
    for other, arm in enumerate(arms):
        if other != me:
            safe *= 1 - chance_to_hit(tables, arm, tokens[other], square)
    return 1 - safe


def _apply(tables, last, home, arms, tokens, seat, token, roll):
    """Tokens after ``seat`` moves ``token`` by ``roll`` (assumed legal), and
    whether anything was captured."""
    mine = tokens[seat]
    start = mine[token]
    end = 0 if start == BASE else start + roll
    new = list(tokens)
    new[seat] = mine[:token] + (end,) + mine[token + 1 :]
    captured = False
    if 0 < end <= last:
        square = tables.square[arms[seat]][end + 1]
        if tables.unsafe[square]:
            for other, arm in enumerate(arms):
                if other != seat:
                    there = tables.progress[arm][square]
                    if there >= 0 and there in new[other]:
                        new[other] = tuple(BASE if q == there else q for q in new[other])
                        captured = True
    return tuple(new), captured


def _legal(tokens, roll, home):
    if roll == 6:
        return [t for t in range(4) if tokens[t] == BASE or tokens[t] + 6 <= home]
    return [t for t in range(4) if tokens[t] != BASE and tokens[t] + roll <= home]


def _read(view):
    geo = GEOMETRIES[view["board"]]
    seats = view["seats"]
    arms = tuple(s["arm"] for s in seats)
    tokens = tuple(tuple(s["tokens"]) for s in seats)
    return geo, arms, tokens


class SmartBot(Bot):
    kind = "smart"

    def choose(self, view, legal, rng):
        if len(legal) == 1:
            return legal[0]
        geo, arms, tokens = _read(view)
        seat = view["to_move"]
        roll = view["rolls"][view["current"]]
        mine = tokens[seat]
        out = [a for a in legal if mine[a["token"]] == BASE]
        if out:
            return min(out, key=lambda a: a["token"])
        tables = geo.tables
        best, best_score = None, None
        for action in sorted(legal, key=lambda a: a["token"]):
            after, _ = _apply(tables, geo.last, geo.home, arms, tokens, seat, action["token"], roll)
            score = sum(after[seat]) - sum(
                sum(after[s]) for s in range(len(after)) if s != seat
            )
            if best_score is None or score > best_score:
                best, best_score = action, score
        return best


DEFAULT_WEIGHTS = {
    "out": 30.0,  # a token out of base, in progress squares
    "column": 0.0,  # a token safe in its home column (risk already says so)
    "home": 0.0,  # a token home (on top of its progress)
    "bonus": 6.0,  # a bonus sequence earned
    "risk": 1.0,  # expected loss from being hit before the next turn
    "threat": 0.3,  # expected gain from hitting next turn (they move first, and run)
    "opp": 0.5,  # weight of an ordinary opponent's position
    "lead": 0.5,  # extra weight of the leading opponent's position
    "safe": 5.0,  # a token of mine on a safe loop square (a start or a star)
    "hitloss": 0.0,  # what being hit costs beyond the token's progress: their bonus sequence
    "stretch": 1.0,  # what a square gained inside the home column is worth (one exact
    # roll brings a token home from any of its squares; below 1 tried, docs/bots.md)
}


class StandardBot(Bot):
    kind = "standard"

    def __init__(self, weights: dict[str, float] | None = None) -> None:
        self.w = {**DEFAULT_WEIGHTS, **(weights or {})}

    @classmethod
    def from_param(cls, param: str | None) -> StandardBot:
        weights = {}
        for item in (param or "").split(","):
            if item:
                key, _, value = item.partition("=")
                if key not in DEFAULT_WEIGHTS:
                    raise ValueError(f"unknown weight {key!r}")
                weights[key] = float(value)
        return cls(weights)

    def choose(self, view, legal, rng):
        if len(legal) == 1:
            return legal[0]
        geo, arms, tokens = _read(view)
        seat = view["to_move"]
        rolls = view["rolls"][view["current"] :]
        bonus = view["bonus"]
        home_bonus = view["home_bonus_roll"]
        best, best_score = None, None
        for action in sorted(legal, key=lambda a: a["token"]):
            score = self._plan(geo, arms, tokens, seat, action["token"], rolls, bonus, home_bonus)
            if best_score is None or score > best_score + 1e-9:
                best, best_score = action, score
        return best

    def _plan(self, geo, arms, tokens, seat, token, rolls, bonus, home_bonus):
        """Best score reachable when ``token`` takes ``rolls[0]`` and the rest of
        the sequence is played as well as possible."""
        tables = geo.tables
        home = geo.home
        after, captured = _apply(tables, geo.last, home, arms, tokens, seat, token, rolls[0])
        end = after[seat][token]
        bonus = bonus or captured or (home_bonus and end == home)
        if all(p == home for p in after[seat]):
            return 1e6  # finishing beats everything
        rest = rolls[1:]
        if not rest:
            return self._evaluate(geo, arms, after, seat, bonus)
        nxt = _legal(after[seat], rest[0], home)
        if not nxt:
            return self._evaluate(geo, arms, after, seat, False)
        return max(
            self._plan(geo, arms, after, seat, t, rest, bonus, home_bonus) for t in nxt
        )

    def _plan_end(self, geo, arms, tokens, seat, token, rolls, bonus, home_bonus):
        """Where the sequence ends when ``token`` takes ``rolls[0]`` and the rest
        is played as ``_plan`` values it: (tokens, a bonus sequence earned), or
        None when my last token arrives home (finished)."""
        home = geo.home
        while True:
            tokens, captured = _apply(geo.tables, geo.last, home, arms, tokens, seat, token,
                                      rolls[0])
            end = tokens[seat][token]
            bonus = bonus or captured or (home_bonus and end == home)
            if all(p == home for p in tokens[seat]):
                return None
            rolls = rolls[1:]
            if not rolls:
                return tokens, bonus
            movable = _legal(tokens[seat], rolls[0], home)
            if not movable:  # a roll no token can use ends the turn, and voids the bonus
                return tokens, False
            token = max(movable, key=lambda t: self._plan(geo, arms, tokens, seat, t, rolls,
                                                          bonus, home_bonus))

    def _evaluate(self, geo, arms, tokens, me, bonus):
        w = self.w
        tables = geo.tables
        last, home = geo.last, geo.home
        n = len(tokens)
        squares = tables.square
        unsafe = tables.unsafe

        def position(tok):
            value = 0.0
            for p in tok:
                if p == BASE:
                    continue
                value += w["out"] + p
                if p > last:
                    value += w["column"]
                    if p == home:
                        value += w["home"]
                    else:
                        value -= (1.0 - w["stretch"]) * (p - last - 1)
            return value

        score = position(tokens[me])
        if bonus:
            score += w["bonus"]
        opp_values = [position(tokens[s]) for s in range(n) if s != me]
        if opp_values:
            score -= w["opp"] * sum(opp_values) + w["lead"] * max(opp_values)

        my_arm = arms[me]
        on_safe, risk = self._exposure(geo, arms, tokens, me)
        score += w["safe"] * on_safe - w["risk"] * risk

        if w["threat"]:
            # The opponents' exposed tokens I could land on in my next turn (though
            # they move first and may run).
            threat = 0.0
            for s in range(n):
                if s == me:
                    continue
                for q in tokens[s]:
                    if 0 < q <= last:
                        sq = squares[arms[s]][q + 1]
                        if unsafe[sq]:
                            threat += chance_to_hit(tables, my_arm, tokens[me], sq) * (
                                w["out"] + q)
            score += w["threat"] * threat
        return score

    def _exposure(self, geo, arms, tokens, me):
        """My tokens on safe loop squares, and the progress I expect to lose before
        my next turn: each token on an unsafe loop square, by the chance that an
        opponent behind it hits it (``hit_before_my_turn``)."""
        tables = geo.tables
        square = tables.square[arms[me]]
        unsafe = tables.unsafe
        out, hitloss = self.w["out"], self.w["hitloss"]
        on_safe, risk = 0, 0.0
        for p in tokens[me]:
            if p < 0 or p > geo.last:
                continue
            sq = square[p + 1]
            if not unsafe[sq]:
                on_safe += 1
                continue
            risk += hit_before_my_turn(tables, arms, tokens, me, sq) * (out + p + hitloss)
        return on_safe, risk


register("ludo", "smart", lambda param: SmartBot())
register("ludo", "standard", StandardBot.from_param)

# The other Ludo kinds live in their own modules (they build on this one), loaded
# with it by games.bots._load; importing them registers them.
MORE_KINDS = ("ludo_priority", "ludo_search")
