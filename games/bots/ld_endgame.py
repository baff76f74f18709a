"""Heads-up Liar's Dice endgames (docs/rules.md §1): the stored strategies that
``standard`` plays, and what the solver and the bots share.

A *position* ``(a, b)`` is a heads-up round where the opener holds ``a`` dice and
the other player ``b``. The round ends at the first challenge; the loser of the
die opens the next round (§1.1), so the game from ``(a, b)`` is a chain of
rounds, and a round is a zero-sum game whose payoff is the win probability of
the position it leads to. Positions are solved from the fewest dice up by
:mod:`games.bots.ld_solver` (numpy, a build tool), over a player's decision state
*(own hand, the last bids, whether 1s are still wild, opener or not)*:
:func:`state_key`. The average strategy is stored in ``ld_endgames.json.gz``,
rounded to thousandths with actions under 0.5% dropped, one JSON line per position
(:func:`write`) so that a process parses only the positions it plays; that stored
table is what ``standard`` plays and what the best response measures.

Pure Python, no dependencies: the engines and bots stay importable anywhere.
"""

from __future__ import annotations

import gzip
import json
import math
import random
from collections.abc import Callable, Iterable
from functools import cache
from itertools import combinations_with_replacement
from pathlib import Path

FACES = (2, 3, 4, 5, 6, 1)  # low to high (docs/rules.md §1.2)
MAX_SOLVED = 3  # every position a v b with 1 <= a, b <= MAX_SOLVED is solved
DATA = Path(__file__).with_name("ld_endgames.json.gz")
CHALLENGE = -1  # action code; a raise is coded by its bid index


def bid_of(index: int) -> tuple[int, int]:
    """Bid index -> (quantity, face); the index order is the raise order of §1.2."""
    return index // 6 + 1, FACES[index % 6]


def index_of(quantity: int, face: int) -> int:
    return (quantity - 1) * 6 + FACES.index(face)


@cache
def hands(k: int) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """Every hand of k dice as a sorted tuple, and its probability."""
    out, prior = [], []
    for combo in combinations_with_replacement(range(1, 7), k):
        ways = math.factorial(k)
        for face in set(combo):
            ways //= math.factorial(combo.count(face))
        out.append(combo)
        prior.append(ways / 6**k)
    return tuple(out), tuple(prior)


@cache
def hand_index(k: int) -> dict[tuple[int, ...], int]:
    return {hand: i for i, hand in enumerate(hands(k)[0])}


def matching(hand: Iterable[int], face: int, wild: bool) -> int:
    """How many dice of ``hand`` count for ``face`` (docs/rules.md §1.4)."""
    return sum(d == face or (wild and face != 1 and d == 1) for d in hand)


@cache
def match_table(k: int) -> dict[tuple[int, bool], tuple[int, ...]]:
    """(face, wild) -> the matching count of every hand of k dice."""
    return {
        (face, wild): tuple(matching(h, face, wild) for h in hands(k)[0])
        for face in range(1, 7)
        for wild in (False, True)
    }


# ---- stored strategies -------------------------------------------------------------

StateKey = tuple[tuple[int, ...], bool, int]  # (last bids, 1s still wild, mover)
Pairs = tuple[tuple[int, float], ...]  # ((action code, probability), ...)


def state_key(history: tuple[int, ...], memory: int) -> StateKey:
    """The decision state after the bids ``history`` (bid indices, the opener's
    first): the last ``memory + 1`` bids (the bid on the table and the ``memory``
    before it), whether 1s are still wild, and who moves (0: the opener)."""
    wild = all(bid_of(i)[1] != 1 for i in history)
    kept = tuple(history[max(0, len(history) - memory - 1):])
    return kept, wild, len(history) % 2


def key_text(key: StateKey) -> str:
    """A state key as stored: bids joined by '.', then w (wild) or n, then the mover."""
    bids, wild, mover = key
    return ".".join(map(str, bids)) + ("w" if wild else "n") + str(mover)


def read(path: Path = DATA) -> dict:
    """A stored solution as written (:func:`write`): the whole JSON document, every
    position's strategy parsed (the solver's and the tools' use; a bot reads one
    position at a time, :func:`stored_strategy`)."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        document = json.loads(fh.readline())
        document["strategies"] = {}
        for line in fh:
            entry = json.loads(line)
            document["strategies"][entry["position"]] = entry["strategy"]
    return document


@cache
def load() -> dict[str, object]:
    """What every decision needs of the stored solution, without its strategies:
    ``values`` ((a, b) -> the opener's win probability), ``meta``, and ``memory``
    (total dice -> the bids a position's state remembers besides the one on the
    table). The first line of the file holds them."""
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        head = json.loads(fh.readline())
    values = {tuple(map(int, k.split(","))): v for k, v in head["values"].items()}
    meta = head["meta"]
    memory = {int(total): int(kept) for total, kept in meta["memory"].items()}
    return {"values": values, "meta": meta, "memory": memory}


@cache
def stored_strategy(a: int, b: int) -> dict[str, dict[str, list[list[int]]]]:
    """Position (a, b)'s stored strategy: state text -> hand index as text ->
    [[action, thousandths], ...], as stored (a row becomes probabilities only when
    a decision reads it). Only this position's line is parsed: the whole table is
    54 MB of JSON and about 830 MB once parsed (3 v 3 alone 30 MB and 470 MB, 2.4 s
    of CPU), while ``standard`` plays 3 of its 9 positions, the smallest (5 MB,
    0.02 s; docs/bots.md)."""
    prefix = json.dumps({"position": f"{a},{b}"}, separators=(",", ":"))[:-1] + ","
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith(prefix):
                return json.loads(line)["strategy"]
    raise KeyError(f"no stored strategy for {a} v {b}")


Policy = Callable[[tuple[int, ...], int, int], Pairs]
# (bids so far as indices, mover, hand index) -> ((action, probability), ...)


def policy_from(a: int, b: int, table: dict[str, dict[str, list[list[int]]]], memory: int
                ) -> Policy:
    """A stored table of position (a, b) as a policy. States the solver gave no
    weight (never reached with that hand) fall back to :func:`fallback`."""
    total = a + b

    def policy(history: tuple[int, ...], mover: int, hand: int) -> Pairs:
        key = state_key(history, memory)
        found = table.get(key_text(key), {}).get(str(hand))
        if found:
            return tuple((code, weight / 1000) for code, weight in found)
        return fallback(total, key, (a, b)[mover], hand)

    return policy


@cache
def stored_policy(a: int, b: int) -> Policy:
    """The stored strategy of position (a, b)."""
    return policy_from(a, b, stored_strategy(a, b), load()["memory"][a + b])


def fallback(total: int, key: StateKey, k: int, hand: int) -> Pairs:
    """A pure action for a state with no stored strategy: challenge unless the bid is
    at least even money on the mover's own ``k`` dice, else the cheapest raise."""
    bids, wild, _ = key
    if not bids:
        return ((0, 1.0),)
    bid = bids[-1]
    q, f = bid_of(bid)
    own = match_table(k)[(f, wild)][hand]
    unseen = total - k
    p = (2 if wild and f != 1 else 1) / 6
    need = q - own
    true = 1.0 if need <= 0 else sum(
        math.comb(unseen, i) * p**i * (1 - p) ** (unseen - i) for i in range(need, unseen + 1)
    )
    if true >= 0.5 and bid + 1 < 6 * total:
        return ((bid + 1, 1.0),)
    return ((CHALLENGE, 1.0),)


def sample(pairs: tuple[tuple[int, float], ...], rng: random.Random) -> int:
    """One action from a mixed strategy, with the game's random source."""
    x = rng.random()
    for code, p in pairs:
        x -= p
        if x < 0:
            return code
    return pairs[-1][0]


# ---- shared by the solver (ld_solver) and the bots ----------------------------------


def round_payoffs(a: int, b: int, values: dict[tuple[int, int], float]) -> tuple[float, float]:
    """The opener's win probability if it loses this round's die, and if the other
    player does; the loser opens the next round (docs/rules.md §1.1)."""
    lose = values[(a - 1, b)] if a > 1 else 0.0
    win = 1.0 - values[(b - 1, a)] if b > 1 else 1.0
    return lose, win


def quantise(sums: list[float], codes: tuple[int, ...], drop: float = 0.005
             ) -> list[list[int]]:
    """Normalise, drop actions under ``drop``, and round to thousandths summing to 1000."""
    total = sum(sums)
    if total <= 0:
        return []
    probs = [(c, s / total) for c, s in zip(codes, sums, strict=True)]
    kept = [(c, p) for c, p in probs if p >= drop] or [max(probs, key=lambda cp: cp[1])]
    norm = sum(p for _, p in kept)
    scaled = [(c, p / norm * 1000) for c, p in kept]
    ints = [[c, int(x)] for c, x in scaled]
    short = 1000 - sum(w for _, w in ints)
    order = sorted(range(len(scaled)), key=lambda i: (-(scaled[i][1] % 1), i))
    for i in order[:short]:
        ints[i][1] += 1
    return [pair for pair in ints if pair[1] > 0]


def write(document: dict, path: Path = DATA) -> None:
    """Byte-for-byte reproducible (sorted keys, no gzip timestamp), one JSON document
    per line: first everything but the strategies, then one line per position,
    ``{"position": "a,b", "strategy": ...}``, so a reader parses only the positions
    it plays (:func:`stored_strategy`)."""
    head = {k: v for k, v in document.items() if k != "strategies"}
    lines = [json.dumps(head, sort_keys=True, separators=(",", ":"))]
    lines += [json.dumps({"position": name, "strategy": strategy}, sort_keys=True,
                         separators=(",", ":"))
              for name, strategy in sorted(document["strategies"].items())]
    with open(path, "wb") as raw, gzip.GzipFile(
        filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9
    ) as fh:
        fh.write("\n".join(lines).encode() + b"\n")
