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
state's counterfactual values. Alternating updates, linear averaging;
deterministic (no sampling).

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
from hashlib import blake2b
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
    load,
    match_table,
    policy_from,
    quantise,
    read,
    round_payoffs,
    state_key,
    write,
)

# Iterations per position, and the bids its state remembers besides the one on the
# table, by total dice. One earlier bid leaves 2 v 2 solved alone at 0.7%
# exploitable however long it is solved (alternating updates: 0.74% at 400
# iterations, 0.70% at 1,500); two earlier bids give 0.29% at 100 (docs/bots.md).
# Without any earlier bid 1 v 2 stays about 2% exploitable. With two, 2 v 3 stayed
# at 0.95% to the end of the game however long it was solved (0.89% at 150
# iterations, 0.95% at 450) and 3 v 3 at 2.26%: iterations were not what they
# lacked. Three earlier bids in 5 and 6 dice in all, 150 iterations: 2 v 3 0.40%,
# 3 v 2 0.37%, 3 v 3 0.85% (144,372 states in 3 v 3, up to 13 GB resident,
# 58 minutes for the three; docs/bots.md).
ITERATIONS = {2: 300, 3: 300, 4: 300, 5: 150, 6: 150}
MEMORY = {2: 2, 3: 2, 4: 2, 5: 3, 6: 3}
# Rows of the table a player's own strategy reaches with less than this (prior
# included) are not stored: play falls back there (drop_unreached).
KEEP_REACH = 1e-6


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
                memory: int = 2) -> tuple[Tree, list[np.ndarray]]:
    """Vector CFR+ on position (a, b); the tree and, per state, the average
    strategy sums (hands x actions, unnormalised).

    The states with the same bid on the table, wildness and mover (a *block*,
    differing only in the earlier bids) have the same actions, so a block is
    updated at once: its strategies are a (states, hands, actions) array. A raise
    leads every state of a block into one child block; with one earlier bid kept,
    to a single state of it, with more, to the state that keeps the same bids
    minus the oldest (states differing only in that one share it), so reaches are
    summed into children and payoffs gathered from them by row.

    Alternating updates (each iteration updates the opener's regrets, then the
    other player's against the updated strategy): with the previous bid kept, 2 v 2
    solved alone was 1.20% exploitable after 400 simultaneous iterations and 0.74%
    after 400 alternating ones (docs/bots.md)."""
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
        # Per raise: the child block, and the child row of each of this block's rows
        # (None when they all lead to the same one: the sums need no scatter).
        kids = []
        for col, child in enumerate(tree.children[first]):
            if child < 0:
                continue
            dest = np.array([where[tree.children[n][col]][1] for n in rows])
            kids.append((where[child][0], dest, int(dest[0]) if (dest == dest[0]).all() else None))
        leaf = challenge_matrix(a, b, bids[-1], wild, mover, lose, win) if bids else None
        info.append((mover, kids, leaf, len(tree.actions[first])))
    regrets = [np.zeros((len(rows), nh[info[k][0]], info[k][3])) for k, rows in enumerate(members)]
    sums = [np.zeros_like(r) for r in regrets]
    for step in range(2 * iterations):
        t, updated = step // 2 + 1, step % 2  # iteration, and whose regrets it updates
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
            # Each raise passes on the mover's reach times its probability, and the
            # other player's reach unchanged (it is the child's mover).
            first_raise = count - len(kids)
            for col, (kb, dest, single) in enumerate(kids):
                passed = mine[k] * sigma[:, :, first_raise + col]
                if single is not None:
                    mine[kb][single] += theirs[k].sum(axis=0)
                    theirs[kb][single] += passed.sum(axis=0)
                else:
                    np.add.at(mine[kb], dest, theirs[k])
                    np.add.at(theirs[kb], dest, passed)
        payoff: list[np.ndarray | None] = [None] * nblocks
        for k in range(nblocks - 1, -1, -1):
            mover, kids, leaf, count = info[k]
            stack = [payoff[kb][dest] for kb, dest, _ in kids]  # (states, opener's, other's)
            if leaf is not None:
                stack.insert(0, np.broadcast_to(leaf, (len(members[k]), *leaf.shape)))
            v = np.stack(stack, axis=1)  # (states, actions, opener's hands, other's hands)
            sigma = sigmas[k]
            if mover == 0:
                # payoff[p, h, k] = sum_a sigma[p, h, a] v[p, a, h, k]
                payoff[k] = np.matmul(sigma[:, :, None, :], v.transpose(0, 2, 1, 3))[:, :, 0, :]
            else:
                payoff[k] = np.matmul(sigma[:, :, None, :], v.transpose(0, 3, 1, 2)
                                      )[:, :, 0, :].transpose(0, 2, 1)
            if mover != updated:
                continue
            weights = prior[1 - mover] * theirs[k]  # (states, other's hands)
            if mover == 0:
                q = np.matmul(v, weights[:, None, :, None])[..., 0].transpose(0, 2, 1)
            else:
                q = -np.matmul(weights[:, None, None, :], v)[:, :, 0, :].transpose(0, 2, 1)
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
    policy = table_policy(a, b, table, memory)
    value = evaluate(a, b, tree, policy, values)
    return a, b, drop_unreached(a, b, tree, table, policy), round(value, 6)


def drop_unreached(a: int, b: int, tree: Tree, table: dict,
                   policy: Callable[[StateKey, int], Pairs], floor: float = KEEP_REACH) -> dict:
    """The table without the rows (state, hand) whose hand the player's own strategy
    brings there with less than ``floor`` of probability (its prior included),
    summed over every way the other player may bid. With two earlier bids kept, most
    states are reached only through bids the strategy almost never makes; there
    play falls back (:func:`ld_endgame.fallback`). What that can cost is at most
    the dropped rows' reach, summed (each under ``floor``), and the best
    response's figures include it: it measures the stored table."""
    prior = (np.array(hands(a)[1]), np.array(hands(b)[1]))
    reach = [[np.zeros(len(prior[0])), np.zeros(len(prior[1]))] for _ in tree.keys]
    reach[0] = [prior[0].copy(), prior[1].copy()]
    kept: dict[str, dict] = {}
    for n, key in enumerate(tree.keys):
        mover = key[2]
        mine, theirs = reach[n][mover], reach[n][1 - mover]
        column = {code: col for col, code in enumerate(tree.actions[n])}
        sigma = np.zeros((len(mine), len(tree.actions[n])))
        for hand in range(len(mine)):
            for code, p in policy(key, hand):
                sigma[hand, column[code]] = p
        for col, child in enumerate(tree.children[n]):
            if child >= 0:
                reach[child][mover] += mine * sigma[:, col]
                reach[child][1 - mover] += theirs
        text = key_text(key)
        row = {hand: pairs for hand, pairs in table.get(text, {}).items()
               if mine[int(hand)] >= floor}
        if row:
            kept[text] = row
    return kept


def solve_all(iterations: dict[int, int] = ITERATIONS, memory: dict[int, int] = MEMORY,
              workers: int = 1, log: Callable[[str], None] = print,
              reuse: dict | None = None, start: int = 2, last: int = 2 * MAX_SOLVED) -> dict:
    """Solve every position up to MAX_SOLVED dice a side (``last`` dice in all),
    fewest dice first (a position's payoffs are the values of the positions its round
    leads to); the stored JSON document.

    ``reuse`` (a document as :func:`ld_endgame.read` returns it) and ``start``: the
    positions of fewer than ``start`` dice in all are copied from it, strategies and
    values, instead of solved. The solver is deterministic, so solving them again
    with the same iterations and memory would give them unchanged; they must have
    been solved with those (else ValueError: the document would misstate them)."""
    values: dict[tuple[int, int], float] = {}
    strategies: dict[str, dict[str, dict[str, list[list[int]]]]] = {}
    if start > 2:
        reused = _reusable(reuse, iterations, memory, start)
        for name, value in reuse["values"].items():
            a, b = map(int, name.split(","))
            if a + b < start:
                values[(a, b)] = value
                strategies[name] = reuse["strategies"][name]
                log(f"kept {a} v {b} from the stored table ({reused})")
    for total in range(start, last + 1):
        jobs = [
            (a, total - a, dict(values), iterations[total], memory[total])
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
            log(f"solved {a} v {b}: {iterations[total]} iterations, {memory[total]} earlier"
                f" bid(s), opener wins {value:.4f}")
    return {
        "meta": {"solver": "vector CFR+, alternating updates",
                 "memory": {str(t): m for t, m in memory.items()},
                 "iterations": {str(t): n for t, n in iterations.items()}},
        "values": {f"{a},{b}": v for (a, b), v in values.items()},
        "strategies": strategies,
    }


def _reusable(document: dict | None, iterations: dict[int, int], memory: dict[int, int],
              start: int) -> str:
    """Check that ``document`` solved every total under ``start`` as asked; a note
    of which iterations and memory those were."""
    if document is None:
        raise ValueError("positions to reuse need a stored document")
    meta = document.get("meta", {})
    for total in range(2, start):
        stored = (meta.get("iterations", {}).get(str(total)),
                  meta.get("memory", {}).get(str(total)))
        if stored != (iterations[total], memory[total]):
            raise ValueError(f"{total} dice in all were stored with (iterations, memory)"
                             f" {stored}, not {(iterations[total], memory[total])}")
    return ", ".join(f"{t}: {iterations[t]} it, memory {memory[t]}" for t in range(2, start))


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
        # The reach as a 16-byte digest, not its 8 bytes a hand: the memo of 3 v 3
        # with three earlier bids held 12.5 GB with the reach itself as the key.
        reach = np.round(weights / mass, 12).tobytes()
        key = (state_key(history, memory), blake2b(reach, digest_size=16).digest())
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


def round_exploitability(a: int, b: int, iterations: int, memory: int,
                         prune: float = 1e-5) -> tuple[float, float]:
    """Solve the round of position (a, b) alone (the later positions at their stored
    values) and measure it: a perfect opponent's edge in that round, averaged over
    the two seats, and the bot mass its best response scored as won by pruning."""
    values = {p: v for p, v in load()["values"].items() if sum(p) < a + b}
    _, _, table, _ = solve_position((a, b, values, iterations, memory))
    policy = policy_from(a, b, table, memory)
    lose, win = round_payoffs(a, b, values)
    as_opener, lost = best_response(a, b, 1, policy, lose, win, prune, memory)
    as_other, lost_other = best_response(a, b, 0, policy, lose, win, prune, memory)
    return (as_opener + as_other - 1) / 2, max(lost, lost_other)


def main(argv: list[str] | None = None) -> int:
    """python -m games.bots.ld_solver [--workers N] [--out PATH] [--from-total T]:
    rebuild the table (with --from-total, only the positions of T dice in all and
    more; the others are copied from the stored one, which must have solved them with
    the same ITERATIONS and MEMORY).
    With --alone A,B [--iterations N] [--memory M] [--prune P]: solve that round alone
    and print how exploitable it is (an experiment: the table is not written)."""
    parser = argparse.ArgumentParser(description="Solve the heads-up Liar's Dice endgames")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default=str(DATA))
    parser.add_argument("--alone", help="a position A,B: solve its round alone and measure it")
    parser.add_argument("--iterations", type=int, help="with --alone (default: ITERATIONS)")
    parser.add_argument("--memory", type=int, help="with --alone (default: MEMORY)")
    parser.add_argument("--prune", type=float, default=1e-5,
                        help="with --alone: bot mass below this is scored as lost (default"
                             " 1e-5; 3 v 3 with two earlier bids needs less: docs/bots.md)")
    parser.add_argument("--from-total", type=int, default=2,
                        help="solve only the positions of this many dice in all and more;"
                             " copy the smaller ones from the stored table")
    args = parser.parse_args(argv)
    if args.alone:
        a, b = map(int, args.alone.split(","))
        iterations = args.iterations or ITERATIONS[a + b]
        memory = MEMORY[a + b] if args.memory is None else args.memory
        gap, pruned = round_exploitability(a, b, iterations, memory, args.prune)
        print(f"{a} v {b} alone: {iterations} iterations, {memory} earlier bid(s):"
              f" {gap:.2%} exploitable (pruned {pruned:.0e})")
        return 0
    reuse = read(DATA) if args.from_total > 2 else None
    document = solve_all(workers=args.workers, log=lambda line: print(line, flush=True),
                         reuse=reuse, start=args.from_total)
    write(document, Path(args.out))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
