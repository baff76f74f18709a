"""Heads-up Liar's Dice endgames with numpy: the solver that builds
``ld_endgames.json.gz`` and the exact best response that measures it.

Build tools only: ``standard`` plays the stored table through
:mod:`games.bots.ld_endgame` (pure Python); nothing at a table imports this module.

**Solver.** Vector CFR+ (Tammelin 2014) with full chance enumeration: every
iteration walks the abstract tree once with the reach of *every* hand of both
players at once. A decision state is :func:`ld_endgame.state_key`: the last
``memory + 1`` bids (the bid on the table and the ``memory`` before it), whether 1s
are still wild, and who moves. States are merged over the histories that reach
them (Neller & Hnath's fixed-strategy iteration): reaches are summed into a
state, and since every strategy depends on the history only through the state,
the expected payoff from a state given both hands (a hands x hands matrix) is the
same for every history into it, which is what lets one backward pass give every
state's counterfactual values. Linear averaging; deterministic (no sampling).

**Best response.** The exploiter knows the bot's strategy and remembers every bid
(perfect recall). It walks every bid sequence, carrying the bot's reach for each
of its hands as a vector; as the bot's strategy depends on the history only
through its decision state, the exploiter's value from a history is its value
from (state, bot reach normalised) scaled by the reach's mass, so those are
memoised. Sequences whose bot mass is below ``prune`` are scored as won by the
exploiter, and the total mass so scored is returned with the value: the figure is
an upper bound, exceeding the exact one by at most that mass.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from .ld_endgame import (
    CHALLENGE,
    DATA,
    MAX_SOLVED,
    Pairs,
    Policy,
    StateKey,
    bid_of,
    fallback,
    hands,
    key_text,
    match_table,
    quantise,
    round_payoffs,
    state_key,
    write,
)

# Iterations per position, by total dice (what fitted in one session's CPU: about
# 12 minutes of one core in all; 2 v 2 still gains from more, docs/bots.md), and
# the bids remembered besides the one on the table (without the previous bid, 1 v 2
# stays about 2% exploitable however long it is solved).
ITERATIONS = {2: 400, 3: 400, 4: 400, 5: 300, 6: 300}
MEMORY = 1


class Tree:
    """The abstract decision states of a round of position (a, b), in an order
    where every state comes after the states that lead to it."""

    def __init__(self, a: int, b: int, memory: int) -> None:
        self.a, self.b, self.memory = a, b, memory
        self.nbids = 6 * (a + b)
        keys = {state_key((), memory)}
        frontier = list(keys)
        while frontier:
            nxt = []
            for key in frontier:
                for child in self._raises(key):
                    if child[1] not in keys:
                        keys.add(child[1])
                        nxt.append(child[1])
            frontier = nxt
        # A raise goes to a higher bid on the table; ties by how many bids are kept.
        self.keys = sorted(keys, key=lambda k: (k[0][-1] if k[0] else -1, len(k[0]), k))
        self.ids = {k: i for i, k in enumerate(self.keys)}
        self.actions: list[tuple[int, ...]] = []
        self.children: list[tuple[int, ...]] = []  # -1 for the challenge
        for key in self.keys:
            kids = self._raises(key)
            codes = tuple(code for code, _ in kids)
            ids = tuple(self.ids[k] for _, k in kids)
            if key[0]:
                codes, ids = (CHALLENGE, *codes), (-1, *ids)
            self.actions.append(codes)
            self.children.append(ids)

    def _raises(self, key):
        bids, wild, mover = key
        last = bids[-1] if bids else -1
        out = []
        for j in range(last + 1, self.nbids):
            kept = (*bids, j)[-(self.memory + 1):]
            out.append((j, (kept, wild and bid_of(j)[1] != 1, 1 - mover)))
        return out

    def dice(self, mover: int) -> int:
        return self.a if mover == 0 else self.b


def _counts(k: int, face: int, wild: bool) -> np.ndarray:
    return np.array(match_table(k)[(face, wild)], dtype=np.int64)


def challenge_matrix(a: int, b: int, bid: int, wild: bool, challenger: int,
                     lose: float, win: float) -> np.ndarray:
    """The opener's payoff of a challenge of ``bid``, by (opener's hand, other's hand):
    a good bid costs the challenger the die."""
    q, f = bid_of(bid)
    good = (_counts(a, f, wild)[:, None] + _counts(b, f, wild)[None, :]) >= q
    opener_loses = good if challenger == 0 else ~good
    return np.where(opener_loses, lose, win)


def solve_round(a: int, b: int, values: dict[tuple[int, int], float], iterations: int,
                memory: int = MEMORY) -> tuple[Tree, list[np.ndarray]]:
    """Vector CFR+ on position (a, b); the tree and, per state, the average
    strategy sums (hands x actions, unnormalised).

    With at most one earlier bid remembered, the states with the same bid on the
    table, wildness and mover (a *block*, differing only in the earlier bid) have
    the same children, so a block is updated at once: its strategies are a
    (states, hands, actions) array."""
    if memory not in (0, 1):
        raise ValueError("the vector solver keeps at most one earlier bid")
    tree = Tree(a, b, memory)
    lose, win = round_payoffs(a, b, values)
    prior = (np.array(hands(a)[1]), np.array(hands(b)[1]))
    nh = (len(prior[0]), len(prior[1]))
    # Blocks: (bid on the table, wild, mover) -> its states, in the tree's order.
    block_of: dict[tuple, int] = {}
    members: list[list[int]] = []
    where: list[tuple[int, int]] = []  # state -> (block, row)
    for n, (bids, wild, mover) in enumerate(tree.keys):
        label = (bids[-1] if bids else -1, wild, mover)
        if label not in block_of:
            block_of[label] = len(members)
            members.append([])
        where.append((block_of[label], len(members[block_of[label]])))
        members[block_of[label]].append(n)
    nblocks = len(members)
    info = []
    for rows in members:
        first = rows[0]
        bids, wild, mover = tree.keys[first]
        kids = [where[c] for c in tree.children[first] if c >= 0]
        leaf = challenge_matrix(a, b, bids[-1], wild, mover, lose, win) if bids else None
        info.append((mover, kids, leaf, len(tree.actions[first])))
    regrets = [np.zeros((len(rows), nh[info[k][0]], info[k][3])) for k, rows in enumerate(members)]
    sums = [np.zeros_like(r) for r in regrets]
    for t in range(1, iterations + 1):
        mine = [np.zeros((len(rows), nh[info[k][0]])) for k, rows in enumerate(members)]
        theirs = [np.zeros((len(rows), nh[1 - info[k][0]])) for k, rows in enumerate(members)]
        mine[0][:] = 1.0
        theirs[0][:] = 1.0
        sigmas = []
        for k in range(nblocks):
            mover, kids, leaf, count = info[k]
            reg = regrets[k]
            norm = reg.sum(axis=2, keepdims=True)
            sigma = np.where(norm > 0, reg / np.where(norm > 0, norm, 1.0), 1.0 / count)
            sigmas.append(sigma)
            if not kids:
                continue
            # Each raise passes on the mover's reach times its probability, and the
            # other player's reach unchanged (it is the child's mover).
            passed = np.einsum("ph,pha->ah", mine[k], sigma[:, :, count - len(kids):])
            other = theirs[k].sum(axis=0)
            for col, (kb, row) in enumerate(kids):
                mine[kb][row] += other
                theirs[kb][row] += passed[col]
        payoff: list[np.ndarray | None] = [None] * nblocks
        for k in range(nblocks - 1, -1, -1):
            mover, kids, leaf, count = info[k]
            stack = [payoff[kb][row] for kb, row in kids]
            if leaf is not None:
                stack.insert(0, leaf)
            v = np.stack(stack)  # (actions, opener's hands, other's hands)
            sigma = sigmas[k]
            weights = prior[1 - mover] * theirs[k]  # (states, other's hands)
            if mover == 0:
                # payoff[p, h, k] = sum_a sigma[p, h, a] v[a, h, k]
                payoff[k] = np.matmul(sigma.transpose(1, 0, 2), v.transpose(1, 0, 2)
                                      ).transpose(1, 0, 2)
                q = np.matmul(weights, v.transpose(1, 2, 0)).transpose(1, 0, 2)
            else:
                payoff[k] = np.matmul(sigma.transpose(1, 0, 2), v.transpose(2, 0, 1)
                                      ).transpose(1, 2, 0)
                q = -np.matmul(weights, v.transpose(2, 1, 0)).transpose(1, 0, 2)
            expected = (q * sigma).sum(axis=2, keepdims=True)
            regrets[k] = np.maximum(regrets[k] + q - expected, 0.0)
            sums[k] += t * mine[k][:, :, None] * sigma
    by_state = [None] * len(tree.keys)
    for k, rows in enumerate(members):
        for row, n in enumerate(rows):
            by_state[n] = sums[k][row]
    return tree, by_state


def stored_table(tree: Tree, sums: list[np.ndarray]) -> dict[str, dict[str, list[list[int]]]]:
    """The JSON table: state key -> hand index -> [[action, thousandths], ...]."""
    table = {}
    for n, key in enumerate(tree.keys):
        row = {}
        for hand in range(sums[n].shape[0]):
            pairs = quantise(list(map(float, sums[n][hand])), tree.actions[n])
            if pairs:
                row[str(hand)] = pairs
        if row:
            table[key_text(key)] = row
    return table


def table_policy(a: int, b: int, table: dict[str, dict[str, list[list[int]]]], memory: int
                 ) -> Callable[[StateKey, int], Pairs]:
    """A JSON table (as :func:`stored_table` writes it) as (state key, hand) -> pairs."""
    total = a + b

    def policy(key: StateKey, hand: int) -> Pairs:
        pairs = table.get(key_text(key), {}).get(str(hand))
        if pairs:
            return tuple((code, w / 1000) for code, w in pairs)
        return fallback(total, key, (a, b)[key[2]], hand)

    return policy


def evaluate(a: int, b: int, tree: Tree, policy: Callable[[StateKey, int], Pairs],
             values: dict[tuple[int, int], float]) -> float:
    """The opener's win probability when both players follow ``policy`` this round
    (exact over every deal)."""
    lose, win = round_payoffs(a, b, values)
    size = len(tree.keys)
    payoff: list[np.ndarray | None] = [None] * size
    for n in range(size - 1, -1, -1):
        key = tree.keys[n]
        bids, wild, mover = key
        column = {code: col for col, code in enumerate(tree.actions[n])}
        sigma = np.zeros((len(hands(tree.dice(mover))[0]), len(tree.actions[n])))
        for hand in range(sigma.shape[0]):
            for code, p in policy(key, hand):
                sigma[hand, column[code]] = p
        stack = np.stack([
            challenge_matrix(a, b, bids[-1], wild, mover, lose, win) if c < 0 else payoff[c]
            for c in tree.children[n]
        ])
        spec = "ha,ahk->hk" if mover == 0 else "ka,ahk->hk"
        payoff[n] = np.einsum(spec, sigma, stack)
    return float(np.array(hands(a)[1]) @ payoff[0] @ np.array(hands(b)[1]))


def solve_position(args: tuple) -> tuple[int, int, dict, float]:
    """Solve one position given the values of the smaller ones; its stored table
    and the opener's win probability under it (rounded, so that the build is the
    same on every machine)."""
    a, b, values, n_iter, memory = args
    tree, sums = solve_round(a, b, values, n_iter, memory)
    table = stored_table(tree, sums)
    value = evaluate(a, b, tree, table_policy(a, b, table, memory), values)
    return a, b, table, round(value, 6)


def solve_all(iterations: dict[int, int] = ITERATIONS, memory: int = MEMORY,
              workers: int = 1, log: Callable[[str], None] = print) -> dict:
    """Solve every position up to MAX_SOLVED dice a side, fewest dice first (a
    position's payoffs are the values of the positions its round leads to); the
    stored JSON document."""
    values: dict[tuple[int, int], float] = {}
    strategies: dict[str, dict[str, dict[str, list[list[int]]]]] = {}
    for total in range(2, 2 * MAX_SOLVED + 1):
        jobs = [
            (a, total - a, dict(values), iterations[total], memory)
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
        "meta": {"solver": "vector CFR+", "memory": memory,
                 "iterations": {str(t): n for t, n in iterations.items()}},
        "values": {f"{a},{b}": v for (a, b), v in values.items()},
        "strategies": strategies,
    }


# ---- the best response ---------------------------------------------------------------------


def best_response(a: int, b: int, bot_seat: int, policy: Policy, lose: float, win: float,
                  prune: float = 1e-7, memory: int | None = None) -> tuple[float, float]:
    """The exploiter's win probability in one round of position (a, b), the bot
    sitting in ``bot_seat`` (0: opener) and playing ``policy``; ``lose``/``win`` are
    the opener's payoffs if it loses / wins the die. Returns it with the bot mass
    scored as won by pruning (the value is exact up to that much, from above).

    ``memory``: the policy depends on the bids only through
    ``state_key(history, memory)``; then subtrees are shared by (state, normalised
    reach) and the bot's strategy is read once per state. None: it may depend on
    the whole history (nothing shared)."""
    total = a + b
    nbids = 6 * total
    br_seat = 1 - bot_seat
    kx, ky = (a, b)[br_seat], (a, b)[bot_seat]
    px, py = np.array(hands(kx)[1]), np.array(hands(ky)[1])
    nx, ny = len(px), len(py)
    # The exploiter's payoff when the opener loses / wins the die.
    br_if_opener_loses = lose if br_seat == 0 else 1.0 - lose
    br_if_opener_wins = win if br_seat == 0 else 1.0 - win
    goods: dict[tuple[int, bool], np.ndarray] = {}

    def leaf(bid: int, wild: bool, challenger: int, weights: np.ndarray) -> np.ndarray:
        good_matrix = goods.get((bid, wild))
        if good_matrix is None:
            q, f = bid_of(bid)
            good_matrix = goods[(bid, wild)] = (
                _counts(kx, f, wild)[:, None] + _counts(ky, f, wild)[None, :] >= q
            ).astype(float)
        mass = weights.sum()
        good = good_matrix @ weights
        # A good bid costs the challenger the die.
        if challenger == 0:
            v_good, v_bad = br_if_opener_loses, br_if_opener_wins
        else:
            v_good, v_bad = br_if_opener_wins, br_if_opener_loses
        return good * v_good + (mass - good) * v_bad

    strategies: dict[StateKey, dict[int, np.ndarray]] = {}

    def bot_strategy(history: tuple[int, ...], mover: int, live: np.ndarray
                     ) -> dict[int, np.ndarray]:
        """action -> the probability of each bot hand taking it."""
        key = state_key(history, memory) if memory is not None else None
        found = strategies.get(key) if key is not None else None
        if found is not None:
            return found
        out: dict[int, np.ndarray] = {}
        for y in range(ny):
            if key is None and not live[y]:
                continue
            for code, p in policy(history, mover, y):
                if p > 0:
                    out.setdefault(code, np.zeros(ny))[y] = p
        if key is not None:
            strategies[key] = out
        return out

    memo: dict[tuple, tuple[np.ndarray, float]] = {}

    def walk(history: tuple[int, ...], wild: bool, weights: np.ndarray
             ) -> tuple[np.ndarray, float]:
        """The exploiter's value for each of its hands (weighted by the bot's reach
        and prior: ``weights``), and the mass pruned below."""
        mass = weights.sum()
        if mass < prune:
            return np.full(nx, mass), mass  # scored as won by the exploiter
        if memory is None:
            return expand(history, wild, weights)
        key = (state_key(history, memory), np.round(weights / mass, 12).tobytes())
        found = memo.get(key)
        if found is None:
            values, pruned = expand(history, wild, weights)
            found = memo[key] = (values / mass, pruned / mass)
        return found[0] * mass, found[1] * mass

    def expand(history, wild, weights) -> tuple[np.ndarray, float]:
        mover = len(history) % 2
        last = history[-1] if history else -1
        if mover == br_seat:
            options, pruned = [], 0.0
            if history:
                options.append(leaf(last, wild, mover, weights))
            for j in range(last + 1, nbids):
                values, lost = walk(history + (j,), wild and bid_of(j)[1] != 1, weights)
                options.append(values)
                pruned = max(pruned, lost)
            return np.max(options, axis=0), pruned
        total_values, pruned = np.zeros(nx), 0.0
        for code, probs in sorted(bot_strategy(history, mover, weights).items()):
            sub = weights * probs
            if not sub.any():
                continue
            if code == CHALLENGE:
                total_values += leaf(last, wild, mover, sub)
            else:
                values, lost = walk(history + (code,), wild and bid_of(code)[1] != 1, sub)
                total_values += values
                pruned += lost
        return total_values, pruned

    values, pruned = walk((), True, py.copy())
    return float(values @ px), float(pruned)


def main(argv: list[str] | None = None) -> int:
    """python -m games.bots.ld_solver [--workers N] [--out PATH]: rebuild the table."""
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
