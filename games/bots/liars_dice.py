"""Computer players for Liar's Dice (docs/rules.md §1), from the view alone.

- ``prob[:T]``: counts its own dice as known and the unseen dice as fair; a bid is
  true with the binomial tail probability. Challenges when the current bid's
  probability is below T (0.5), otherwise makes the raise most likely to be true
  (ties: the lowest raise). It opens with its best bid by the same measure.
- ``easy``: ``prob`` with a jittered threshold that sometimes makes a random
  small raise instead.
- ``standard``: heads-up with at most three dice a side, plays the solved endgame
  strategy of ``ld_endgame`` (sampled with the game's rng). Elsewhere it
  infers every opponent's hand from the bids they made this round
  (a player tends to bid what they believe, and to raise only a bid they believe),
  by exact Bayesian weighting over the hands each opponent could hold. It then
  compares challenging with each raise, modelling whether the next player would
  challenge that raise given the hands they may hold.
- ``bayes[:T]``: the same inference, then ``prob``'s rule on the posterior (a
  baseline that reads bids).

Every bot uses only the ``rng`` it is given, so a game is reproducible.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from itertools import combinations_with_replacement
from typing import Any

from ..liars_dice import bid_key, matches
from . import Bot, register
from .ld_endgame import (
    CHALLENGE,
    MAX_SOLVED,
    bid_of,
    hand_index,
    index_of,
    sample,
    stored_policy,
)

Action = dict[str, Any]


@cache
def tail(n: int, need: int, sixths: int) -> float:
    """P(at least ``need`` successes in ``n`` dice), a success having p = sixths / 6."""
    if need <= 0:
        return 1.0
    if need > n:
        return 0.0
    p = sixths / 6
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(need, n + 1))


def success_sixths(face: int, wild: bool) -> int:
    """A fair unseen die counts for ``face`` with p = 2/6 while 1s are wild, else 1/6."""
    return 2 if wild and face != 1 else 1


def wild_after(wild: bool, face: int) -> bool:
    """Whether 1s are wild once a bid on ``face`` is made (docs/rules.md §1.3)."""
    return wild and face != 1


def own_count(dice: list[int], face: int, wild: bool) -> int:
    return sum(matches(d, face, wild) for d in dice)


def bid_probability(view: dict[str, Any], quantity: int, face: int) -> float:
    """P(the bid quantity × face is true) from the seat's own dice alone. A bid on
    1s ends the wild 1s, so it counts 1s only."""
    dice = view["my_dice"] or []
    wild = wild_after(view["ones_wild"], face)
    unseen = view["total_dice"] - len(dice)
    return tail(unseen, quantity - own_count(dice, face, wild), success_sixths(face, wild))


def _bids(legal: list[Action]) -> list[Action]:
    return [a for a in legal if a["type"] == "bid"]


def _challenge(legal: list[Action]) -> Action | None:
    return next((a for a in legal if a["type"] == "challenge"), None)


class ProbBot(Bot):
    kind = "prob"

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def choose(self, view, legal, rng):
        return self._choose(view, legal, self.threshold)

    @staticmethod
    def _choose(view, legal, threshold):
        challenge = _challenge(legal)
        bid = view["bid"]
        if challenge is not None:
            if bid_probability(view, bid["quantity"], bid["face"]) < threshold:
                return challenge
        raises = _bids(legal)
        if not raises:
            return challenge
        # legal lists raises from the lowest up, so max() keeps the lowest of ties.
        return max(raises, key=lambda a: bid_probability(view, a["quantity"], a["face"]))


class EasyBot(ProbBot):
    """``prob`` with noise: a jittered threshold, and now and then a random small raise."""

    kind = "easy"

    def choose(self, view, legal, rng):
        threshold = self.threshold + rng.uniform(-0.2, 0.2)
        raises = _bids(legal)
        if raises and rng.random() < 0.2:
            return rng.choice(raises[:8])
        return self._choose(view, legal, threshold)


# ---- standard: Bayesian inference over the opponents' hands ------------------------------


def _hands(k: int) -> tuple[list[tuple[int, ...]], list[float]]:
    """Every multiset of k dice as face counts (index 1..6), with its probability."""
    hands, priors = [], []
    for combo in combinations_with_replacement(range(1, 7), k):
        counts = [0] * 7
        for die in combo:
            counts[die] += 1
        ways = math.factorial(k)
        for c in counts:
            ways //= math.factorial(c)
        hands.append(tuple(counts))
        priors.append(ways / 6**k)
    return hands, priors


MAX_DICE = 5
HANDS = [_hands(k) for k in range(MAX_DICE + 1)]
# MATCH[k][(face, wild)][i]: how many dice of hand i count for face.
MATCH = [
    {
        (face, wild): [h[face] + (h[1] if wild and face != 1 else 0) for h in HANDS[k][0]]
        for face in range(1, 7)
        for wild in (False, True)
    }
    for k in range(MAX_DICE + 1)
]


# GROUPS[k][(face, wild)][m]: the hands of k dice with exactly m dice counting for face.
GROUPS = [
    {
        key: [[i for i, x in enumerate(match) if x == m] for m in range(k + 1)]
        for key, match in MATCH[k].items()
    }
    for k in range(MAX_DICE + 1)
]
FACES = (2, 3, 4, 5, 6, 1)


def _cheapest(prev: tuple[int, int, bool] | None, face: int) -> int:
    """The lowest quantity on ``face`` that beats ``prev`` (1 for an opening)."""
    if prev is None:
        return 1
    return prev[0] + (0 if bid_key(prev[0], face) > bid_key(prev[0], prev[1]) else 1)


@lru_cache(maxsize=4096)
def _beliefs(k: int, unseen: int, quantity: int, face: int, wild_before: bool) -> list[float]:
    """For each hand of k dice: its holder's own-dice belief in quantity × face."""
    w = wild_after(wild_before, face)
    six = success_sixths(face, w)
    return [tail(unseen, quantity - m, six) for m in MATCH[k][(face, w)]]


@lru_cache(maxsize=4096)
def _doubts(k: int, unseen: int, quantity: int, face: int, wild_before: bool,
            threshold: float) -> list[float]:
    """For each hand: how likely its holder challenges quantity × face (soft threshold)."""
    return [
        1.0 / (1.0 + math.exp((b - threshold) * 12))
        for b in _beliefs(k, unseen, quantity, face, wild_before)
    ]


@lru_cache(maxsize=2048)
def _likelihood(
    k: int, total: int, prev: tuple[int, int, bool] | None, quantity: int, face: int,
    wild: bool, beta: float, floor: float, raise_floor: float, threshold: float,
) -> tuple[float, ...]:
    """For each hand of k dice: how likely its holder bids quantity × face over
    ``prev`` (None for an opening). Cached: every later decision of the round
    weighs the same bids again.

    The softmax over the cheapest raise on each face is summed from small
    tables: a hand's belief in a bid depends only on how many of its dice count
    for that face, so each face's weights exp(β·(belief − 1)) are computed once
    per count (0..k), not once per hand (a third of a computer's decision at a
    six-player table was this function; docs/performance.md, round 12)."""
    unseen = total - k
    chosen_weights, chosen_counts = _weights_by_count(k, unseen, quantity, face, wild, beta)
    norms = [0.0] * len(chosen_counts)
    for g in FACES:
        need = _cheapest(prev, g)
        if need <= total:
            weights, counts = _weights_by_count(k, unseen, need, g, wild, beta)
            norms = [n + weights[m] for n, m in zip(norms, counts, strict=True)]
    if min(norms) <= 0.0:  # every weight underflowed: only a huge tuned β gets here
        return _likelihood_exact(k, total, prev, quantity, face, wild, beta, floor,
                                 raise_floor, threshold)
    out = [floor + chosen_weights[m] / n for m, n in zip(chosen_counts, norms, strict=True)]
    if prev is not None:
        keep, doubts = 1.0 - raise_floor, _doubts(k, unseen, *prev, threshold)
        out = [x * (1.0 - keep * d) for x, d in zip(out, doubts, strict=True)]
    return tuple(out)


def _weights_by_count(k: int, unseen: int, quantity: int, face: int, wild_before: bool,
                      beta: float) -> tuple[list[float], list[int]]:
    """exp(β·(belief − 1)) for a holder of m matching dice (m = 0..k), and how
    many dice of each hand match. Beliefs are at most 1, so no weight overflows."""
    w = wild_after(wild_before, face)
    six = success_sixths(face, w)
    weights = [math.exp(beta * (tail(unseen, quantity - m, six) - 1.0)) for m in range(k + 1)]
    return weights, MATCH[k][(face, w)]


def _likelihood_exact(k, total, prev, quantity, face, wild, beta, floor, raise_floor,
                      threshold) -> tuple[float, ...]:
    """_likelihood hand by hand, each softmax shifted by its own largest belief."""
    unseen = total - k
    chosen = _beliefs(k, unseen, quantity, face, wild)
    options = [
        _beliefs(k, unseen, _cheapest(prev, g), g, wild)
        for g in FACES
        if _cheapest(prev, g) <= total
    ]
    doubt = None if prev is None else _doubts(k, unseen, *prev, threshold)
    out = []
    for i in range(len(chosen)):
        top = max(o[i] for o in options)
        norm = sum(math.exp(beta * (o[i] - top)) for o in options)
        like = floor + math.exp(beta * (chosen[i] - top)) / norm
        if doubt is not None:
            like *= 1.0 - (1.0 - raise_floor) * doubt[i]
        out.append(like)
    return tuple(out)


def _convolve(a: list[float], b: list[float]) -> list[float]:
    if len(a) == 1:  # the first opponent: every sum starts from [1.0]
        return [a[0] * y for y in b]
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def _at_least(dist: list[float], need: int) -> float:
    if need <= 0:
        return 1.0
    return sum(dist[need:]) if need < len(dist) else 0.0


# ---- heads-up endgames: the solved strategies of ld_endgame -----------------------------


def endgame_position(view) -> tuple[int, int, int] | None:
    """(opener's dice, other's dice, my role: 0 opener / 1 other) when the round is
    heads-up with at most MAX_SOLVED dice a side; else None."""
    counts = view["dice_counts"]
    alive = [s for s, c in enumerate(counts) if c]
    if len(alive) != 2 or max(counts) > MAX_SOLVED or not view.get("my_dice"):
        return None
    opener = view["starter"]
    other = alive[0] if alive[1] == opener else alive[1]
    return counts[opener], counts[other], 0 if view["seat"] == opener else 1


def endgame_strategy(view) -> tuple[tuple[int, float], ...] | None:
    """The stored mixed strategy for this decision, as ((action code, p), ...)."""
    position = endgame_position(view)
    if position is None:
        return None
    a, b, role = position
    history = tuple(index_of(bid["quantity"], bid["face"]) for bid in view["bids"])
    if len(history) % 2 != role:
        return None  # not heads-up alternation (cannot happen in a 2-player round)
    hand = hand_index(len(view["my_dice"]))[tuple(sorted(view["my_dice"]))]
    return stored_policy(a, b)(history, role, hand)


def _action(code: int) -> Action:
    if code == CHALLENGE:
        return {"type": "challenge"}
    quantity, face = bid_of(code)
    return {"type": "bid", "quantity": quantity, "face": face}


class StandardBot(Bot):
    kind = "standard"

    # The weight of a bid its bidder thought false (they bluff, or model badly).
    BID_FLOOR = 0.08
    # The weight of a raise made over a bid its raiser thought false.
    RAISE_FLOOR = 0.3
    # How the next player is assumed to challenge: below this belief, softly.
    OPP_THRESHOLD = 0.5
    OPP_SOFTNESS = 0.08
    # Raises considered above the current quantity.
    SPAN = 3

    # How sharply a bidder is assumed to prefer the raise they believe most.
    BETA = 10.0
    # With 3+ players, the chance I lose once the next player raises is CONT / alive.
    CONT = 1.0
    # Play the solved table in heads-up endgames of at most this many dice in all
    # (0: never; 6 is every solved position). Every solved position is under 1%
    # exploitable, but each step above 3 gives back more against prob (88.8% with
    # 5, 93.1% with 3, docs/bots.md) than it gains elsewhere.
    TABLE = 3
    TUNABLE = ("BETA", "CONT", "BID_FLOOR", "RAISE_FLOOR", "OPP_THRESHOLD", "OPP_SOFTNESS", "SPAN",
               "TABLE")

    def __init__(self, param: str | None = None) -> None:
        # Tuning hook: "standard:BETA=8,CONT=1.2" overrides the class constants.
        for item in filter(None, (param or "").split(",")):
            key, _, value = item.partition("=")
            key = key.strip().upper()
            if key not in self.TUNABLE:
                raise ValueError(f"standard takes {', '.join(self.TUNABLE)}, not {item!r}")
            setattr(self, key, int(value) if key in ("SPAN", "TABLE") else float(value))

    def settled(self, view, legal, rng):
        """The action when there is nothing to weigh, else None: a forced
        challenge, a solved endgame's strategy, or a position too large for
        the inference (``prob``'s play)."""
        if not _bids(legal):
            return _challenge(legal)
        solved = endgame_strategy(view) if view["total_dice"] <= self.TABLE else None
        if solved is not None:
            return _action(sample(solved, rng))
        if any(c > MAX_DICE for c in view["dice_counts"]):
            return ProbBot._choose(view, legal, 0.5)
        return None

    def choose(self, view, legal, rng):
        settled = self.settled(view, legal, rng)
        if settled is not None:
            return settled
        challenge = _challenge(legal)
        scored, challenge_value = self.scored_actions(view, legal, rng)
        best_value, best = max(scored, key=lambda pair: pair[0])
        if challenge is not None and challenge_value >= best_value:
            return challenge
        return best

    def scored_actions(self, view, legal, rng, posts=None
                       ) -> tuple[list[tuple[float, Action]], float]:
        """Each raise considered (up to SPAN above the current quantity) with the
        chance of keeping my dice if I make it (plus a hundredth of noise, which
        breaks ties at random), and that chance if I challenge (-1 if I cannot).
        ``posts``: the opponents' hand weights, if already read from the bids."""
        challenge = _challenge(legal)
        raises = _bids(legal)
        seat = view["seat"]
        counts = view["dice_counts"]
        total = view["total_dice"]
        mine = view["my_dice"] or []
        posts = self._posteriors(view) if posts is None else posts
        n = len(counts)
        nxt = next(
            (seat + step) % n for step in range(1, n + 1) if counts[(seat + step) % n]
        )
        alive = sum(1 for c in counts if c)
        cont_loss = 0.5 if alive == 2 else min(0.9, self.CONT / alive)

        bid = view["bid"]
        wild = view["ones_wild"]
        top = bid["quantity"] if bid else 1
        scored = []
        cache: dict[tuple[int, bool], tuple[list[float], ...]] = {}
        for action in raises:
            q, f = action["quantity"], action["face"]
            if q > top + self.SPAN:
                break
            w = wild_after(wild, f)
            key = (f, w)
            if key not in cache:
                cache[key] = self._dists(posts, counts, seat, nxt, f, w)
            _, rest, next_dist = cache[key]
            need = q - own_count(mine, f, w)
            value = self._raise_value(next_dist, counts[nxt], total, rest, need, q, f, w, cont_loss)
            scored.append((value + rng.uniform(0.0, 0.01), action))
        challenge_value = -1.0
        if challenge is not None:
            f = bid["face"]
            w = view["ones_wild"]
            key = (f, w)
            if key not in cache:
                cache[key] = self._dists(posts, counts, seat, nxt, f, w)
            everyone = cache[key][0]
            challenge_value = 1.0 - _at_least(everyone, bid["quantity"] - own_count(mine, f, w))
        return scored, challenge_value

    def _posteriors(self, view) -> dict[int, list[float]]:
        """Each opponent's hand weights given their bids this round.

        A bidder is modelled as preferring, among the cheapest raise on each face,
        the one they believe most (a softmax of their own-dice belief), and as
        raising rather than challenging a bid they believe."""
        seat, counts, total = view["seat"], view["dice_counts"], view["total_dice"]
        posts = {s: list(HANDS[c][1]) for s, c in enumerate(counts) if c and s != seat}
        wild = True
        prev = None
        for b in view["bids"]:
            s, q, f = b["seat"], b["quantity"], b["face"]
            if s in posts:
                like = _likelihood(
                    counts[s], total, prev, q, f, wild, self.BETA, self.BID_FLOOR,
                    self.RAISE_FLOOR, self.OPP_THRESHOLD,
                )
                weights = [x * y for x, y in zip(posts[s], like, strict=True)]
                norm = sum(weights)
                if norm > 0:
                    posts[s] = [x / norm for x in weights]
            prev = (q, f, wild)
            wild = wild_after(wild, f)
        return posts

    @staticmethod
    def _dists(posts, counts, seat, nxt, face, wild):
        """Distributions of the matching count among all opponents, among all
        opponents but the next player, and of the next player alone."""
        rest = [1.0]
        own_next = [1.0]
        for s, weights in posts.items():
            pick = weights.__getitem__
            dist = [sum(map(pick, group)) for group in GROUPS[counts[s]][(face, wild)]]
            if s == nxt:
                own_next = dist
            else:
                rest = _convolve(rest, dist)
        return _convolve(rest, own_next), rest, own_next

    def _raise_value(self, next_dist, k, total, rest, need, q, f, w, cont_loss):
        """P(I keep my dice) if I bid q × f: the next player challenges (softly
        below their belief threshold) and the bid stands, or they raise and the
        round goes on. The next player's belief depends on their hand only
        through how many of their dice count, so it is summed by that count."""
        six = success_sixths(f, w)
        unseen = total - k
        value = 0.0
        for m, weight in enumerate(next_dist):
            if weight < 1e-9:
                continue
            truth = _at_least(rest, need - m)
            belief = tail(unseen, q - m, six)
            challenged = 1.0 / (1.0 + math.exp((belief - self.OPP_THRESHOLD) / self.OPP_SOFTNESS))
            value += weight * (challenged * truth + (1.0 - challenged) * (1.0 - cont_loss))
        return value


class BayesBot(StandardBot):
    """``bayes[:T]``: reads bids, then plays like ``prob`` on what it read.

    Each opponent's hand is weighted by how likely that opponent was to make the
    bids it made this round (the same exact Bayesian model as ``standard``: a
    bidder prefers the bid it believes most, and raises only a bid it believes).
    A bid is then true with the probability of the matching count among all
    opponents under those posteriors. It challenges when the bid on the table is
    below T (0.5) and otherwise makes the raise most likely to be true (within
    three above the current quantity; ties: the lowest). A baseline that reads
    bids but does not model how the next player answers."""

    kind = "bayes"

    def __init__(self, param: str | None = None) -> None:
        super().__init__()
        try:
            self.threshold = 0.5 if param is None else float(param)
        except ValueError:
            raise ValueError(f"bayes takes a threshold such as bayes:0.4, not {param!r}") from None

    def choose(self, view, legal, rng):
        challenge = _challenge(legal)
        raises = _bids(legal)
        if not raises:
            return challenge
        counts = view["dice_counts"]
        if any(c > MAX_DICE for c in counts):
            return ProbBot._choose(view, legal, self.threshold)
        mine = view["my_dice"] or []
        posts = self._posteriors(view)
        seat = view["seat"]
        cache: dict[tuple[int, bool], list[float]] = {}

        def p_true(q: int, f: int, w: bool) -> float:
            if (f, w) not in cache:
                cache[(f, w)] = self._dists(posts, counts, seat, seat, f, w)[0]
            return _at_least(cache[(f, w)], q - own_count(mine, f, w))

        bid, wild = view["bid"], view["ones_wild"]
        if challenge is not None and p_true(bid["quantity"], bid["face"], wild) < self.threshold:
            return challenge
        top = bid["quantity"] if bid else 1
        best, best_p = raises[0], -1.0
        for action in raises:
            q, f = action["quantity"], action["face"]
            if q > top + self.SPAN:
                break
            p = p_true(q, f, wild_after(wild, f))
            if p > best_p:
                best, best_p = action, p
        return best


def _prob_factory(param: str | None) -> Bot:
    if param is None:
        return ProbBot()
    try:
        threshold = float(param)
    except ValueError:
        raise ValueError(f"prob takes a threshold such as prob:0.3, not {param!r}") from None
    return ProbBot(threshold)


# Kinds that build on these, kept in their own files (games.bots loads them).
MORE_KINDS = ("ld_search",)

register("liars_dice", "prob", _prob_factory)
register("liars_dice", "easy", lambda param: EasyBot())
register("liars_dice", "standard", StandardBot)
register("liars_dice", "bayes", BayesBot)
