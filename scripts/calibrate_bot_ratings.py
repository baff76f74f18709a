"""Measure the computer players' ratings that each game's Declaration.bot_ratings holds.

    .venv/bin/python scripts/calibrate_bot_ratings.py ludo --games 300

Simulated 4-seat games between randomly drawn kinds, rated with the same
OpenSkill model as people (every kind starts as a newcomer); a kind seated
twice in one game counts with its better place. Prints each kind's mu and sigma.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openskill.models import PlackettLuce  # noqa: E402

from games.simulate import simulate_record  # noqa: E402

KINDS = {"liars_dice": ["random", "prob", "easy", "standard", "search"],
         "ludo": ["random", "smart", "standard"], "snakes": ["random", "standard"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("game", choices=sorted(KINDS))
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    model, kinds, rng = PlackettLuce(), KINDS[args.game], random.Random(1)
    ratings = {kind: model.rating() for kind in kinds}
    for seed in range(args.games):
        seated = [rng.choice(kinds) for _ in range(args.seats)]
        present = sorted(set(seated))
        if len(present) < 2:
            continue
        placings = simulate_record(args.game, seated, seed=seed)["placings"]
        best = {kind: min(placings.index(s) + 1 for s, k in enumerate(seated) if k == kind)
                for kind in present}
        rated = model.rate([[ratings[k]] for k in present], ranks=[best[k] for k in present])
        for kind, (new,) in zip(present, rated, strict=True):
            ratings[kind] = new
    for kind, rating in sorted(ratings.items(), key=lambda item: item[1].mu):
        print(f"{args.game} {kind}: mu {rating.mu:.1f}, sigma {rating.sigma:.2f}")


if __name__ == "__main__":
    main()
