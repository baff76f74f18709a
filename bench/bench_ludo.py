"""Ludo bench: the bot strength targets, decision times and engine speed.

Prints, without asserting:
- the target tournaments (seat-rotated, with 95% confidence intervals): square
  board, one standard vs three random and vs three smart; issue #17's targets, one
  standard (and one search) vs three priority on the square board and vs five
  priority on the hexagon; search against standard, 1 vs 3 and heads-up;
- decision time p50/p99 of every kind on the six-player hexagon, in one run, so
  the cheap kinds are the baseline of the search's figures (the machine is shared);
- the time of 1,000 four-player games between standard bots on one core.

``--quick`` runs small samples (a smoke test, not a measurement). Tuning the
evaluation's weights against ``priority`` is ``bench/tune_ludo.py`` (not run by
``make bench``: it plays for as long as it is given).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.simulate import DecisionTimer, run_tournament, simulate_record  # noqa: E402

TARGETS = [
    ("square, standard vs 3 random", ["standard", "random", "random", "random"], None, 0.80),
    ("square, standard vs 3 smart", ["standard", "smart", "smart", "smart"], None, 0.45),
    ("hex, standard vs 5 smart", ["standard"] + ["smart"] * 5, {"board": "hex"}, 0.35),
    ("square, standard vs 3 priority", ["standard"] + ["priority"] * 3, None, 0.45),
    ("hex, standard vs 5 priority", ["standard"] + ["priority"] * 5, {"board": "hex"}, 0.30),
    ("square, search vs 3 priority", ["search"] + ["priority"] * 3, None, 0.45),
    ("hex, search vs 5 priority", ["search"] + ["priority"] * 5, {"board": "hex"}, 0.30),
    ("square, search vs 3 standard", ["search"] + ["standard"] * 3, None, 0.25),
    ("square heads-up, search vs standard", ["search", "standard"], None, 0.50),
]


def tournaments(games: int, workers: int) -> None:
    for title, specs, options, target in TARGETS:
        started = time.perf_counter()
        result = run_tournament(
            "ludo", specs, games, seed="bench", options=options, workers=workers
        )
        elapsed = time.perf_counter() - started
        command = (
            f"manage.py tournament ludo --players {len(specs)} --bots {','.join(specs)}"
            f" --games {games} --seed bench"
        )
        print(f"{title} (target >= {target:.0%}), {games} games in {elapsed:.1f}s:")
        print(f"   ({command})")
        for line in result.lines():
            print("   " + line)


def decision_times(games: int) -> None:
    """Six players on the hexagon (the largest tree), every seat the same kind."""
    for kind in ("search", "standard", "priority", "smart"):
        timer = DecisionTimer()
        for i in range(games):
            simulate_record("ludo", [kind] * 6, seed="timing", index=i, timer=timer)
        print(
            f"{kind} decision time (hex, 6 players) over {len(timer.samples)} decisions:"
            f" p50 {timer.percentile(50) * 1e3:.3f} ms, p99 {timer.percentile(99) * 1e3:.3f} ms,"
            f" max {max(timer.samples) * 1e3:.3f} ms"
        )


def engine_speed(games: int) -> None:
    started = time.perf_counter()
    for i in range(games):
        simulate_record("ludo", ["standard"] * 4, seed="speed", index=i)
    elapsed = time.perf_counter() - started
    print(
        f"{games} four-player standard games on one core: {elapsed:.1f}s"
        f" ({games / elapsed:.1f} games/s; 1,000 games ~ {elapsed / games * 1000:.1f}s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small samples")
    parser.add_argument("--games", type=int, default=None, help="games per tournament")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    games = args.games or (60 if args.quick else 1000)
    tournaments(games, args.workers)
    decision_times(3 if args.quick else 20)
    engine_speed(50 if args.quick else 1000)


if __name__ == "__main__":
    main()
