"""Compare Ludo kinds on the same games, each against the same opponents (issue #17).

A tournament's games share a dice stream, so once two candidates' play differs,
who rolls which later die changes and their games are as good as independent: a
difference of one point needs some 30,000 games a side to show. Here every seat
rolls from its *own* stream instead (common random numbers): a seat's k-th die is
the same in both runs whatever anyone plays, so the two candidates' games stay
alike except where their choices really lead elsewhere. The figure is the paired
difference of their win rates, with its 95% interval.

    python bench/compare_ludo.py standard standard:risk=1.5 --games 3000 --seed c2
    python bench/compare_ludo.py standard search --players 6 --opponent priority
    python bench/compare_ludo.py standard standard:threat=0.2 standard:threat=0.4 --workers 2

The first kind is the baseline; each one after it is compared with it, game by game.

The dice are not the game's provably-fair stream, so these games have no record:
a tool for choosing between candidates (``bench/tune_ludo.py`` tunes weights on
ordinary tournaments), whose pick is then checked by ``manage.py tournament``.
``--workers`` processes share the games; run it under ``nice -n 19`` on a shared
machine.
"""

from __future__ import annotations

import argparse
import functools
import math
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import make_bot  # noqa: E402
from games.registry import get_game  # noqa: E402
from games.simulate import play_game  # noqa: E402


class SeatDice:
    """Dice drawn from one stream per seat; ``seat`` is the seat about to roll
    (``play_game`` tells it after every step through ``on_step``)."""

    def __init__(self, seed: str, index: int, players: int, first_seat: int) -> None:
        self.streams = [random.Random(f"{seed}:{index}:{s}") for s in range(players)]
        self.seat = first_seat

    def draw(self, count: int) -> list[int]:
        return [self.streams[self.seat].randint(1, 6) for _ in range(count)]


def play(specs: list[str], seed: str, index: int):
    """Game ``index`` between ``specs`` (one per seat), every seat rolling from its
    own stream: the final state and the events."""
    game = get_game("ludo")
    bots = [make_bot("ludo", spec) for spec in specs]
    dice = SeatDice(seed, index, len(specs), game.turn(game.initial_state(len(specs), None)).seat)

    def next_roller(state) -> None:
        turn = game.turn(state)
        if turn is not None and turn.seat is not None:
            dice.seat = turn.seat

    return play_game(game, bots, None, dice, random.Random(f"{seed}:{index}:bots"),
                     on_step=next_roller)


def wins(spec: str, opponent: str, players: int, seed: str, index: int) -> bool:
    """Whether ``spec`` wins game ``index``: seated at ``-index % players`` (seats
    rotate as in a tournament), every other seat played by ``opponent``."""
    seat = -index % players
    state, _ = play([spec if s == seat else opponent for s in range(players)], seed, index)
    return get_game("ludo").placings(state)[0] == seat


def results(specs: list[str], opponent: str, players: int, seed: str,
            indices: range) -> list[list[int]]:
    """For each game index, whether each of ``specs`` wins it (1 or 0)."""
    return [[int(wins(spec, opponent, players, seed, index)) for spec in specs]
            for index in indices]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline")
    parser.add_argument("candidates", nargs="+", help="each compared with the baseline")
    parser.add_argument("--opponent", default="priority")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", default="compare")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes, each playing blocks of game indices")
    args = parser.parse_args()
    started = time.perf_counter()
    specs = [args.baseline, *args.candidates]
    blocks = [range(lo, min(args.games, lo + 250)) for lo in range(0, args.games, 250)]
    play_block = functools.partial(results, specs, args.opponent, args.players, args.seed)
    if args.workers > 1:
        with multiprocessing.Pool(args.workers) as pool:
            rows = [row for block in pool.imap(play_block, blocks) for row in block]
    else:
        rows = [row for block in blocks for row in play_block(block)]
    n = len(rows)
    base = sum(row[0] for row in rows)
    print(f"ludo, {args.players} players, {n} games each, seats rotated, opponents"
          f" {args.opponent}, seed {args.seed!r}, dice per seat")
    print(f"  {args.baseline}: won {base} ({base / n:.2%})")
    for column, spec in enumerate(args.candidates, 1):
        diffs = [row[column] - row[0] for row in rows]
        mean = sum(diffs) / n
        spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, n - 1) / n)
        won = sum(row[column] for row in rows)
        print(f"  {spec}: won {won} ({won / n:.2%}); against {args.baseline}:"
              f" {mean:+.2%}, 95% interval {mean - 1.96 * spread:+.2%} to"
              f" {mean + 1.96 * spread:+.2%}; games with different results:"
              f" {sum(d != 0 for d in diffs)}")
    print(f"  [{time.perf_counter() - started:.0f} s]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
