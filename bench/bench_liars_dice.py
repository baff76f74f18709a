"""Liar's Dice bots: how strong ``standard`` is and how fast every bot decides.

Prints, without asserting, one seat-rotated tournament per strength target (with
95% confidence intervals) and the decision time p50/p99 of ``standard``,
``search``, ``bayes`` and ``prob`` (the floor, measured in the same run). The
default sizes take a while on two shared cores; ``--quick`` runs a fifth of the
games.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.simulate import DecisionTimer, run_tournament, simulate_record  # noqa: E402

# (specs, games, target) — the target is for the first spec.
HEADS_UP, MULTI = 2000, 600
TARGETS = [
    (["standard", "random"], 400, "standard wins >= 95%"),
    (["standard"] + ["random"] * 3, 400, "standard wins >= 95%"),
    (["standard"] + ["random"] * 5, 400, "standard wins >= 95%"),
    (["standard", "prob"], HEADS_UP, "standard wins >= 70%"),
    (["standard"] + ["prob"] * 3, MULTI, "standard wins >= 50%"),
    (["standard"] + ["prob"] * 5, MULTI, "standard wins >= 37%"),
    (["standard", "prob:0.3"], HEADS_UP, "standard wins >= 55%"),
    (["standard", "prob:0.4"], HEADS_UP, "standard wins >= 55%"),
    # Against a bid reader (issue 17): bayes reads bids like standard but plays like prob.
    (["standard", "bayes"], 600, "standard wins >= 60%"),
    (["standard"] + ["bayes"] * 3, 600, "standard wins >= 40%"),
    (["bayes", "prob"], 600, "baseline: how strong bayes is"),
    # search, the expert level a host may seat: issue 17's targets against the bid
    # reader, no regression against prob (standard's figure above), and standard.
    (["search", "bayes"], 600, "search wins >= 60%"),
    (["search"] + ["bayes"] * 3, 600, "search wins >= 40%"),
    (["search", "prob"], HEADS_UP, "search wins at least standard's share above"),
    (["search", "standard"], 600, "search at least level with standard (>= 50%)"),
    # The same bot under two labels (SPAN=3 is the default), so each side is counted.
    (["standard", "standard:SPAN=3"], HEADS_UP, "50% +- 3 points"),
]


def decision_times(kind: str, games: int) -> DecisionTimer:
    """Every decision of ``kind`` playing all seats, heads-up and at a full table."""
    timer = DecisionTimer()
    for index in range(games):
        players = 2 if index % 2 == 0 else 6
        simulate_record("liars_dice", [kind] * players, seed="bench", index=index, timer=timer)
    return timer


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the games")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", help="run only the targets whose specs contain this")
    args = parser.parse_args(argv)
    scale = 5 if args.quick else 1

    for specs, games, target in TARGETS:
        if args.only and args.only not in ",".join(specs):
            continue
        games = max(50, games // scale)
        started = time.perf_counter()
        result = run_tournament("liars_dice", specs, games, seed="bench", workers=args.workers)
        print(f"liars_dice, {len(specs)} players, {games} seat-rotated games"
              f" ({time.perf_counter() - started:.0f} s); target: {target}")
        for line in result.lines():
            print("  " + line)
        sys.stdout.flush()

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores,"
          f" Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}")
    for kind in ("standard", "search", "bayes", "prob"):
        timer = decision_times(kind, max(4, 40 // scale))
        print(
            f"decision time {kind:>8}: p50 {timer.percentile(50) * 1000:.2f} ms,"
            f" p99 {timer.percentile(99) * 1000:.2f} ms,"
            f" max {max(timer.samples) * 1000:.2f} ms over {len(timer.samples)} decisions"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
