"""Whole games between computer players, as records: the simulator and tournaments.

``play_game`` is the one loop that drives any engine with bots and the fair dice;
the simulator, tournaments, benchmarks and the contract tests all use it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .base import Game
from .bots import Bot, make_bot
from .fairness import DiceStream, seed_hash, simulated_seeds
from .record import build_record, seat_entry
from .registry import get_game


@dataclass
class DecisionTimer:
    """Collects how long bots take per decision (for ``make bench``)."""

    samples: list[float] = field(default_factory=list)

    def percentile(self, p: float) -> float:
        ordered = sorted(self.samples)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def play_game(
    game: Game,
    bots: Sequence[Bot],
    options: dict[str, Any] | None,
    dice: DiceStream,
    rng: random.Random,
    *,
    timer: DecisionTimer | None = None,
    on_step: Callable[[Any], None] | None = None,
) -> tuple[Any, list[dict[str, Any]]]:
    """Play to the end; return the final state and every event."""
    state = game.initial_state(len(bots), options)
    events: list[dict[str, Any]] = []
    while (turn := game.turn(state)) is not None:
        if turn.is_roll or turn.seat is None:
            action: dict[str, Any] = {"type": "roll"}
        elif turn.forced is not None:
            action = turn.forced
        else:
            view = game.view_for(state, turn.seat)
            legal = game.legal_actions(state, turn.seat)
            started = time.perf_counter() if timer else 0.0
            action = bots[turn.seat].choose(view, legal, rng)
            if timer:
                timer.samples.append(time.perf_counter() - started)
        if turn.dice:
            action = {**action, "dice": dice.draw(turn.dice)}
        state, produced = game.apply(state, turn.seat, action)
        events.extend(produced)
        if on_step:
            on_step(state)
    return state, events


def simulate_record(
    game_name: str,
    bot_specs: Sequence[str],
    *,
    seed: int | str = 0,
    index: int = 0,
    options: dict[str, Any] | None = None,
    timer: DecisionTimer | None = None,
) -> dict[str, Any]:
    """One finished game between bots, as a record; reproducible from (seed, index)."""
    game = get_game(game_name)
    bots = [make_bot(game_name, spec) for spec in bot_specs]
    options = game.resolve_options(len(bots), options)
    server_seed, client_seed = simulated_seeds(seed, index)
    rng = random.Random(f"{seed}:{index}:bots")
    state, events = play_game(
        game, bots, options, DiceStream(server_seed, client_seed), rng, timer=timer
    )
    seats = [
        seat_entry(
            i, f"{spec.partition(':')[0]}-{i + 1}", bot=spec, **game.record_seat_extra(state, i)
        )
        for i, spec in enumerate(bot_specs)
    ]
    return build_record(
        game=game_name,
        seats=seats,
        options=options,
        server_seed_hash=seed_hash(server_seed),
        server_seed=server_seed,
        client_seed=client_seed,
        events=events,
        status="finished",
        placings=game.placings(state),
    )


# ---- tournaments ----------------------------------------------------------------


def wilson_interval(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% confidence interval of a win rate (Wilson score)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _tournament_chunk(args: tuple) -> list[tuple[int, list[int]]]:
    game_name, specs, seed, indices, options = args
    n = len(specs)
    out = []
    for i in indices:
        rotation = i % n  # seat rotation: every kind plays from every seat
        seated = [specs[(s + rotation) % n] for s in range(n)]
        record = simulate_record(game_name, seated, seed=seed, index=i, options=options)
        winner_seat = record["placings"][0]
        # Seat s plays specs[(s + rotation) % n], so the winner is that index.
        out.append((i, [(winner_seat + rotation) % n]))
    return out


@dataclass
class TournamentResult:
    specs: list[str]
    games: int
    wins: dict[str, int]  # by kind spec, summed over seats of that kind
    seats: dict[str, int]  # how many seats each kind had per game

    def lines(self) -> list[str]:
        out = []
        for spec in dict.fromkeys(self.specs):
            wins = self.wins.get(spec, 0)
            lo, hi = wilson_interval(wins, self.games)
            fair = self.seats[spec] / len(self.specs)
            out.append(
                f"{spec:>14} x{self.seats[spec]}: won {wins}/{self.games}"
                f" = {wins / self.games:6.1%}"
                f"  (95% CI {lo:.1%}-{hi:.1%}; an equal share would be {fair:.1%})"
            )
        return out


def run_tournament(
    game_name: str,
    specs: Sequence[str],
    games: int,
    *,
    seed: int | str = 0,
    options: dict[str, Any] | None = None,
    workers: int = 2,
) -> TournamentResult:
    """Seat-rotated games between the kinds in ``specs`` (one per seat)."""
    specs = list(specs)
    chunks = [list(range(w, games, workers)) for w in range(workers)]
    jobs = [(game_name, specs, seed, c, options) for c in chunks if c]
    results: list[tuple[int, list[int]]] = []
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part in pool.map(_tournament_chunk, jobs):
                results.extend(part)
    else:
        for job in jobs:
            results.extend(_tournament_chunk(job))
    wins: dict[str, int] = {}
    for _, (winner_index,) in results:
        spec = specs[winner_index]
        wins[spec] = wins.get(spec, 0) + 1
    seats = {spec: specs.count(spec) for spec in specs}
    return TournamentResult(specs=specs, games=games, wins=wins, seats=seats)
