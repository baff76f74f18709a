"""Heads-up Liar's Dice endgames (docs/rules.md §1): a solver, stored strategies,
and an exact best response.

A *position* ``(a, b)`` is a heads-up round where the opener holds ``a`` dice and
the other player ``b``. The round ends at the first challenge; the loser of the
die opens the next round (§1.1), so the game from ``(a, b)`` is a chain of
rounds, and a round is a zero-sum game whose payoff is the win probability of
the position it leads to. Positions are solved from the fewest dice up.

The solver is fixed-strategy-iteration CFR (Neller & Hnath, "Approximating
optimal Dudo play with fixed-strategy iteration counterfactual regret
minimization", 2011) over a player's decision state *(own hand, the bid on the
table, whether 1s are still wild, opener or not)*: the same state our bot sees
apart from the earlier bids. Chance is sampled (one deal per iteration, from a
seeded generator: the build is deterministic). The average strategy is stored in
``ld_endgames.json.gz``, rounded to thousandths with actions under 0.5% dropped;
that stored table is what ``standard`` plays and what the best response measures.

The best response (:func:`best_response`) is exact: the exploiter remembers every
bid of the round (perfect recall) and knows the bot's strategy; it is computed by
walking every bid sequence the bot can be part of, carrying the bot's reach
probability for each of its hands. Bid sequences whose probability under the bot's
strategy is below ``prune`` are scored as if the exploiter won them outright, so
the figure is an upper bound on what a perfect opponent wins.

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


class Round:
    """The decision states of one heads-up round, opener ``a`` dice, other ``b``.

    A node is the opening (id 0) or ``(bid, wild, mover)``: ``bid`` just made,
    ``wild`` whether 1s still count as wild after it, ``mover`` 0 for the opener
    and 1 for the other player. Node ids grow with the bid, so ascending ids are a
    topological order."""

    def __init__(self, a: int, b: int) -> None:
        self.a, self.b = a, b
        self.total = a + b
        self.nbids = 6 * self.total
        self.size = 1 + self.nbids * 4
        self.actions: list[tuple[int, ...]] = [()] * self.size
        self.children: list[tuple[int, ...]] = [()] * self.size
        self.actions[0] = tuple(range(self.nbids))
        self.children[0] = tuple(self.node(j, bid_of(j)[1] != 1, 1) for j in range(self.nbids))
        for i in range(self.nbids):
            for wild in (False, True):
                for mover in (0, 1):
                    n = self.node(i, wild, mover)
                    raises = range(i + 1, self.nbids)
                    self.actions[n] = (CHALLENGE, *raises)
                    self.children[n] = (-1, *(
                        self.node(j, wild and bid_of(j)[1] != 1, 1 - mover) for j in raises
                    ))

    def node(self, bid: int, wild: bool, mover: int) -> int:
        return 1 + (bid * 2 + wild) * 2 + mover

    def unpack(self, n: int) -> tuple[int, bool, int]:
        """node id -> (bid, wild, mover); the opening is (-1, True, 0)."""
        if n == 0:
            return -1, True, 0
        bid, rest = divmod(n - 1, 4)
        return bid, bool(rest // 2), rest % 2

    def dice(self, mover: int) -> int:
        return self.a if mover == 0 else self.b


# ---- stored strategies -------------------------------------------------------------

Strategy = dict[int, dict[int, tuple[tuple[int, float], ...]]]  # node -> hand -> actions


@cache
def load() -> dict[str, object]:
    """The stored solution: ``values`` and ``strategies`` keyed ``"a,b"``."""
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        raw = json.load(fh)
    strategies: dict[tuple[int, int], Strategy] = {}
    for key, nodes in raw["strategies"].items():
        a, b = map(int, key.split(","))
        table: Strategy = {}
        for node, by_hand in nodes.items():
            table[int(node)] = {
                int(h): tuple((code, weight / 1000) for code, weight in pairs)
                for h, pairs in by_hand.items()
            }
        strategies[(a, b)] = table
    values = {tuple(map(int, k.split(","))): v for k, v in raw["values"].items()}
    return {"values": values, "strategies": strategies, "meta": raw.get("meta", {})}


@cache
def round_for(a: int, b: int) -> Round:
    return Round(a, b)


@cache
def stored_policy(a: int, b: int) -> Callable[[int, int, int], tuple[tuple[int, float], ...]]:
    """(node, mover, hand index) -> ((action, probability), ...) from the stored table.

    States the solver never reached (its average strategy there has no weight) are
    not stored; they fall back to :func:`fallback`."""
    table = load()["strategies"][(a, b)]
    rnd = round_for(a, b)

    def policy(node: int, mover: int, hand: int) -> tuple[tuple[int, float], ...]:
        found = table.get(node, {}).get(hand)
        if found:
            return found
        return fallback(rnd, node, mover, hand)

    return policy


def fallback(rnd: Round, node: int, mover: int, hand: int) -> tuple[tuple[int, float], ...]:
    """A pure action for a state with no stored strategy: challenge unless the bid is
    at least even money on the mover's own dice, else the cheapest raise."""
    bid, wild, _ = rnd.unpack(node)
    if bid < 0:
        return ((0, 1.0),)
    k = rnd.dice(mover)
    q, f = bid_of(bid)
    own = match_table(k)[(f, wild)][hand]
    unseen = rnd.total - k
    p = (2 if wild and f != 1 else 1) / 6
    need = q - own
    true = 1.0 if need <= 0 else sum(
        math.comb(unseen, i) * p**i * (1 - p) ** (unseen - i) for i in range(need, unseen + 1)
    )
    if true >= 0.5 and bid + 1 < rnd.nbids:
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


# ---- the solver ------------------------------------------------------------------------


def round_payoffs(a: int, b: int, values: dict[tuple[int, int], float]) -> tuple[float, float]:
    """The opener's win probability if it loses this round's die, and if the other
    player does; the loser opens the next round (docs/rules.md §1.1)."""
    lose = values[(a - 1, b)] if a > 1 else 0.0
    win = 1.0 - values[(b - 1, a)] if b > 1 else 1.0
    return lose, win


def solve_round(a: int, b: int, values: dict[tuple[int, int], float], iterations: int,
                seed: str = "khelaghor") -> dict[int, dict[int, list[float]]]:
    """Fixed-strategy-iteration CFR+ with one sampled deal per iteration and linear
    averaging; returns the average strategy sums by node and hand (unnormalised).

    Reach probabilities are summed over every bid sequence into a node, a player's
    own edges leaving the other player's reach unchanged (FSICFR's rule); regrets
    are weighted by the other player's reach."""
    rnd = Round(a, b)
    lose, win = round_payoffs(a, b, values)
    mt0, mt1 = match_table(a), match_table(b)
    rng = random.Random(f"{seed}:{a},{b}")
    size = rnd.size
    info = []
    for n in range(size):
        bid, wild, mover = rnd.unpack(n)
        kids = tuple(c for c in rnd.children[n] if c >= 0)
        q, f = bid_of(bid) if bid >= 0 else (0, 0)
        info.append((mover, kids, bid >= 0, q, (f, wild), len(rnd.actions[n])))
    uniform = {k: [1.0 / k] * k for k in range(1, rnd.nbids + 2)}
    regrets: dict[int, list[float]] = {}
    sums: dict[int, dict[int, list[float]]] = {}
    index0, index1 = hand_index(a), hand_index(b)
    randint = rng.randint
    for t in range(1, iterations + 1):
        d0 = index0[tuple(sorted(randint(1, 6) for _ in range(a)))]
        d1 = index1[tuple(sorted(randint(1, 6) for _ in range(b)))]
        r0 = [0.0] * size
        r1 = [0.0] * size
        r0[0] = r1[0] = 1.0
        sigmas: list[list[float] | None] = [None] * size
        for n in range(size):
            p0, p1 = r0[n], r1[n]
            if p0 == 0.0 and p1 == 0.0:
                continue
            mover, kids, chal, _, _, count = info[n]
            key = n * 64 + (d0 if mover == 0 else d1)
            reg = regrets.get(key)
            if reg is None:
                sigma = uniform[count]
            else:
                norm = sum(reg)  # CFR+: regrets are never negative
                sigma = [x / norm for x in reg] if norm > 0 else uniform[count]
            sigmas[n] = sigma
            raise_probs = sigma[1:] if chal else sigma
            if mover == 0:
                for c, p in zip(kids, raise_probs, strict=True):
                    r0[c] += p0 * p
                    r1[c] += p1
            else:
                for c, p in zip(kids, raise_probs, strict=True):
                    r0[c] += p0
                    r1[c] += p1 * p
        value = [0.0] * size
        for n in range(size - 1, -1, -1):
            sigma = sigmas[n]
            if sigma is None:
                continue
            mover, kids, chal, q, fw, count = info[n]
            vals = [value[c] for c in kids]
            if chal:
                # A good bid costs the challenger (the mover) the die.
                opener_loses = (mt0[fw][d0] + mt1[fw][d1] >= q) == (mover == 0)
                vals.insert(0, lose if opener_loses else win)
            v = sum([p * x for p, x in zip(sigma, vals, strict=True)])
            value[n] = v
            if mover == 0:
                w, own, hand = r1[n], r0[n], d0
            else:
                w, own, hand = -r0[n], r1[n], d1
            key = n * 64 + hand
            reg = regrets.get(key)
            if reg is None:
                reg = [0.0] * count
            regrets[key] = [r + w * (x - v) if r + w * (x - v) > 0 else 0.0
                            for r, x in zip(reg, vals, strict=True)]
            row = sums.get(n)
            if row is None:
                row = sums[n] = {}
            acc = row.get(hand)
            tw = t * own  # linear averaging
            row[hand] = [tw * p for p in sigma] if acc is None else [
                s + tw * p for s, p in zip(acc, sigma, strict=True)
            ]
    return sums


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


def evaluate(a: int, b: int, policy, values) -> float:
    """The opener's win probability when both players follow ``policy`` this round
    (exact over every deal)."""
    rnd = Round(a, b)
    lose, win = round_payoffs(a, b, values)
    pa, pb = hands(a)[1], hands(b)[1]
    mt = (match_table(a), match_table(b))
    total = 0.0
    for x, px in enumerate(pa):
        for y, py in enumerate(pb):
            total += px * py * _play_value(rnd, policy, (x, y), mt, lose, win)
    return total


def _play_value(rnd, policy, deal, mt, lose, win) -> float:
    memo: dict[int, float] = {}

    def value(n: int) -> float:
        if n in memo:
            return memo[n]
        bid, wild, mover = rnd.unpack(n)
        out = 0.0
        for code, p in policy(n, mover, deal[mover]):
            if code == CHALLENGE:
                q, f = bid_of(bid)
                count = mt[0][(f, wild)][deal[0]] + mt[1][(f, wild)][deal[1]]
                out += p * (lose if (count >= q) == (mover == 0) else win)
            else:
                child = rnd.children[n][rnd.actions[n].index(code)]
                out += p * value(child)
        memo[n] = out
        return out

    return value(0)


ITERATIONS = {2: 40000, 3: 24000, 4: 12000, 5: 8000, 6: 6000}  # by total dice


def solve_position(args: tuple) -> tuple[int, int, dict, float]:
    """Solve one position given the values of the smaller ones; its stored table
    and the opener's win probability under it."""
    a, b, values, n_iter, seed = args
    sums = solve_round(a, b, values, n_iter, seed)
    rnd = Round(a, b)
    table: dict[str, dict[str, list[list[int]]]] = {}
    for node in sorted(sums):
        row = {}
        for hand in sorted(sums[node]):
            pairs = quantise(sums[node][hand], rnd.actions[node])
            if pairs:
                row[str(hand)] = pairs
        if row:
            table[str(node)] = row
    frozen = {
        int(n): {int(h): tuple((c, w / 1000) for c, w in pairs) for h, pairs in row.items()}
        for n, row in table.items()
    }

    def policy(node, mover, hand):
        return frozen.get(node, {}).get(hand) or fallback(rnd, node, mover, hand)

    # Stored values are rounded so that the build is the same on every machine.
    return a, b, table, round(evaluate(a, b, policy, values), 6)


def solve_all(iterations: dict[int, int] = ITERATIONS, seed: str = "khelaghor",
              workers: int = 1, log: Callable[[str], None] = print) -> dict:
    """Solve every position up to MAX_SOLVED dice a side, fewest dice first (a
    position's payoffs are the values of the positions its round leads to); the
    stored JSON document."""
    from concurrent.futures import ProcessPoolExecutor

    values: dict[tuple[int, int], float] = {}
    strategies: dict[str, dict[str, dict[str, list[list[int]]]]] = {}
    for total in range(2, 2 * MAX_SOLVED + 1):
        jobs = [
            (a, total - a, dict(values), iterations[total], seed)
            for a in range(1, MAX_SOLVED + 1)
            if 1 <= total - a <= MAX_SOLVED
        ]
        if workers > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                done = list(pool.map(solve_position, jobs))
        else:
            done = [solve_position(job) for job in jobs]
        for a, b, table, value in done:
            strategies[f"{a},{b}"] = table
            values[(a, b)] = value
            log(f"solved {a} v {b}: {iterations[total]} iterations, opener wins {value:.4f}")
    return {
        "meta": {"seed": seed, "iterations": {str(t): n for t, n in iterations.items()}},
        "values": {f"{a},{b}": v for (a, b), v in values.items()},
        "strategies": strategies,
    }


def write(document: dict, path: Path = DATA) -> None:
    """Byte-for-byte reproducible: sorted keys, no gzip timestamp."""
    text = json.dumps(document, sort_keys=True, separators=(",", ":"))
    with open(path, "wb") as raw, gzip.GzipFile(
        filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9
    ) as fh:
        fh.write(text.encode())


def main(argv: list[str] | None = None) -> int:
    """python -m games.bots.ld_endgame [--workers N] [--out PATH]: rebuild the table."""
    import argparse

    parser = argparse.ArgumentParser(description="Solve the heads-up Liar's Dice endgames")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default=str(DATA))
    args = parser.parse_args(argv)
    document = solve_all(workers=args.workers, log=lambda line: print(line, flush=True))
    write(document, Path(args.out))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# ---- the best response ---------------------------------------------------------------------

Policy = Callable[[tuple[int, ...], int, int], tuple[tuple[int, float], ...]]
# (bids so far as indices, mover, hand index) -> ((action, probability), ...)


def best_response(a: int, b: int, bot_seat: int, policy: Policy, lose: float, win: float,
                  prune: float = 1e-7, memoryless: bool = False) -> float:
    """The exploiter's win probability in one round of position (a, b), the bot
    sitting in ``bot_seat`` (0: opener) and playing ``policy``; ``lose``/``win`` are
    the opener's payoffs if it loses / wins the die. Exact for a perfect-recall
    exploiter, up to at most ``prune`` probability mass per pruned sequence scored as
    a win (so an upper bound).

    ``memoryless``: the policy depends on the bids only through the node (bid on the
    table, wildness, mover), as the stored table does. Then the exploiter's
    continuation depends on the history only through the node and the bot's reach
    vector, and scales with it, so subtrees are shared by (node, normalised reach)."""
    rnd = Round(a, b)
    br_seat = 1 - bot_seat
    (hx, px), (hy, py) = hands(rnd.dice(br_seat)), hands(rnd.dice(bot_seat))
    mtx, mty = match_table(rnd.dice(br_seat)), match_table(rnd.dice(bot_seat))
    nx, ny = len(hx), len(hy)
    # The exploiter's payoff when the opener loses / wins the die.
    br_if_opener_loses = lose if br_seat == 0 else 1.0 - lose
    br_if_opener_wins = win if br_seat == 0 else 1.0 - win

    def leaf(bid: int, wild: bool, challenger: int, reach: list[float]) -> list[float]:
        q, f = bid_of(bid)
        my = mty[(f, wild)]
        by_count = [0.0] * (rnd.dice(bot_seat) + 1)
        for y, r in enumerate(reach):
            if r:
                by_count[my[y]] += r * py[y]
        mass = sum(by_count)
        # suffix[m]: bot mass with at least m matching dice.
        suffix = [0.0] * (len(by_count) + 1)
        for m in range(len(by_count) - 1, -1, -1):
            suffix[m] = suffix[m + 1] + by_count[m]
        out = []
        mx = mtx[(f, wild)]
        for x in range(nx):
            need = q - mx[x]
            good = mass if need <= 0 else (suffix[need] if need < len(suffix) else 0.0)
            # A good bid costs the challenger the die.
            opener_loses_good = challenger == 0
            v_good = br_if_opener_loses if opener_loses_good else br_if_opener_wins
            v_bad = br_if_opener_wins if opener_loses_good else br_if_opener_loses
            out.append(good * v_good + (mass - good) * v_bad)
        return out

    memo: dict[tuple, list[float]] = {}

    def walk(history: tuple[int, ...], wild: bool, reach: list[float]) -> list[float]:
        mover = len(history) % 2
        mass = sum(r * p for r, p in zip(reach, py, strict=True))
        if mass < prune:
            return [mass] * nx  # scored as won by the exploiter: an upper bound
        last = history[-1] if history else -1
        if memoryless:
            key = (last, wild, mover, tuple(round(r / mass, 12) for r in reach))
            found = memo.get(key)
            if found is None:
                found = memo[key] = [v / mass for v in expand(history, last, wild, mover, reach)]
            return [v * mass for v in found]
        return expand(history, last, wild, mover, reach)

    def expand(history, last, wild, mover, reach) -> list[float]:
        raises = range(last + 1, rnd.nbids)
        if mover == br_seat:
            best: list[float] | None = None
            options: list[list[float]] = []
            if history:
                options.append(leaf(last, wild, mover, reach))
            for j in raises:
                options.append(walk(history + (j,), wild and bid_of(j)[1] != 1, reach))
            best = [max(col) for col in zip(*options, strict=True)]
            return best
        total = [0.0] * nx
        by_action: dict[int, list[float]] = {}
        for y in range(ny):
            if reach[y] == 0.0:
                continue
            for code, p in policy(history, mover, y):
                if p > 0:
                    by_action.setdefault(code, [0.0] * ny)[y] = reach[y] * p
        for code, sub in sorted(by_action.items()):
            if code == CHALLENGE:
                part = leaf(last, wild, mover, sub)
            else:
                part = walk(history + (code,), wild and bid_of(code)[1] != 1, sub)
            total = [s + v for s, v in zip(total, part, strict=True)]
        return total

    values = walk((), True, [1.0] * ny)
    return sum(v * p for v, p in zip(values, px, strict=True))


def table_policy(a: int, b: int) -> Policy:
    """The stored strategy of position (a, b) as a history policy."""
    rnd = Round(a, b)
    inner = stored_policy(a, b)

    def policy(history, mover, hand):
        return inner(node_after(rnd, history), mover, hand)

    return policy


def node_after(rnd: Round, history: tuple[int, ...]) -> int:
    """The decision node after the bids ``history`` (bid indices)."""
    if not history:
        return 0
    wild = all(bid_of(i)[1] != 1 for i in history)
    return rnd.node(history[-1], wild, len(history) % 2)
