"""Engine speed: simulated games per second per game and player count, and bot
decision time (p50/p99). Prints figures; asserts nothing. ``--quick`` for fewer games.

    python bench/bench_engines.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.registry import game_names, get_game  # noqa: E402
from games.simulate import DecisionTimer, simulate_record  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    games_per_setup = {"snakes": 1000, "liars_dice": 200, "ludo": 200}
    scale = 0.1 if args.quick else 1.0
    print("Simulated games per second, one core, every seat the `standard` bot")
    print(f"{'game':<11} {'players':>7} {'games':>6} {'games/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for name in game_names():
        game = get_game(name)
        count = max(10, int(games_per_setup.get(name, 100) * scale))
        for players in range(game.min_players, game.max_players + 1):
            timer = DecisionTimer()
            started = time.perf_counter()
            for i in range(count):
                simulate_record(name, ["standard"] * players, seed="bench", index=i, timer=timer)
            elapsed = time.perf_counter() - started
            print(
                f"{name:<11} {players:>7} {count:>6} {count / elapsed:>9.1f}"
                f" {timer.percentile(50) * 1000:>8.2f} {timer.percentile(99) * 1000:>8.2f}"
            )
    print("(p50/p99: one bot decision; Snakes & Ladders has no decision but the roll.)")


if __name__ == "__main__":
    main()
