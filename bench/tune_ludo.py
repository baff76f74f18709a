"""Tune ``standard``'s evaluation weights against ``priority`` (issue #17).

Coordinate search: from a starting set of weights, try each weight times and
divided by a step, keep a change when it wins more games, and halve the step
when a whole round changes nothing. Every candidate plays the *same* games (one
seed, seat-rotated, the same dice stream per game index: common random numbers),
so two candidates differ by their play, not by their luck, as far as the dice
stream lets them (a different move can change who rolls which later die).

    python bench/tune_ludo.py --games 1000 --seed tune [--players 4] [--start out=15,...]

Prints every candidate and its win rate, and the best weights at the end. Use
another seed than the one of the reported figures, so that the figures are not
measured on the games the weights were fitted to. One process (the machine is
shared): run it under ``nice -n 19``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots.ludo import DEFAULT_WEIGHTS  # noqa: E402
from games.simulate import run_tournament, wilson_interval  # noqa: E402


def spec_of(kind: str, weights: dict[str, float]) -> str:
    changed = {k: v for k, v in weights.items() if v != DEFAULT_WEIGHTS[k]}
    if not changed:
        return kind
    return kind + ":" + ",".join(f"{k}={v:g}" for k, v in sorted(changed.items()))


def win_rate(kind, weights, players, games, seed) -> float:
    spec = spec_of(kind, weights)
    specs = [spec] + ["priority"] * (players - 1)
    started = time.perf_counter()
    result = run_tournament("ludo", specs, games, seed=seed, workers=1)
    wins = result.wins.get(spec, 0)
    lo, hi = wilson_interval(wins, games)
    print(f"{wins / games:6.1%} ({lo:.1%}-{hi:.1%}) {spec}  [{time.perf_counter() - started:.0f}s]",
          flush=True)
    return wins / games


def parse_weights(text: str) -> dict[str, float]:
    weights = dict(DEFAULT_WEIGHTS)
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        if key not in DEFAULT_WEIGHTS:
            raise SystemExit(f"unknown weight {key!r}")
        weights[key] = float(value)
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", default="tune")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--kind", default="standard", help="standard, or search (slower)")
    parser.add_argument("--start", default="", help="name=value,... to start from")
    parser.add_argument("--only", default="", help="comma-separated weights to tune")
    parser.add_argument("--step", type=float, default=1.5, help="multiplicative step")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    weights = parse_weights(args.start)
    names = [n for n in (args.only.split(",") if args.only else DEFAULT_WEIGHTS) if n]
    best = win_rate(args.kind, weights, args.players, args.games, args.seed)
    step = args.step
    for _ in range(args.rounds):
        improved = False
        for name in names:
            value = weights[name]
            # A weight at 0 is moved additively (a multiplicative step cannot leave 0).
            tries = [value * step, value / step] if value else [5.0, -5.0]
            for candidate in tries:
                trial = {**weights, name: round(candidate, 3)}
                rate = win_rate(args.kind, trial, args.players, args.games, args.seed)
                if rate > best:
                    best, weights, improved = rate, trial, True
                    break
        if not improved:
            step = 1 + (step - 1) / 2
    print(f"best {best:.1%}: {spec_of(args.kind, weights)}")


if __name__ == "__main__":
    main()
