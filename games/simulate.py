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
from .bots.external import describe_stats
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


class Lineup:
    """The players of a run, one per ``--bots`` entry, for game after game.

    An outside program is slow to start, so each ``external:`` entry keeps one
    ``ExternalBot`` (one process) for the whole run and is told of each new game
    (``new_game``); built-in kinds are made afresh for every game, as before, so
    a record stays reproducible from its seed and index alone. In a seat-rotated
    run, entry ``j`` sits in seat ``(j - rotation) % n``.
    """

    def __init__(self, game_name: str, specs: Sequence[str]):
        self.game_name = game_name
        self.specs = list(specs)
        self.kept: dict[int, Bot] = {
            j: make_bot(game_name, spec)
            for j, spec in enumerate(self.specs)
            if spec.partition(":")[0] == "external"
        }

    def bots(self, rotation: int = 0) -> list[Bot]:
        """One bot per seat: seat ``s`` is played by entry ``(s + rotation) % n``."""
        n = len(self.specs)
        entries = [(s + rotation) % n for s in range(n)]
        return [self.kept[j] if j in self.kept else make_bot(self.game_name, self.specs[j])
                for j in entries]

    def stats(self) -> dict[int, dict[str, int]]:
        """Per kept entry: starts, decisions and fallbacks to random so far."""
        return {j: bot.stats() for j, bot in self.kept.items()}  # type: ignore[attr-defined]

    def close(self) -> None:
        for bot in self.kept.values():
            bot.close()  # type: ignore[attr-defined]

    def __enter__(self) -> Lineup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def external_report(
    specs: Sequence[str], stats: dict[int, dict[str, int]], *, label: str = "seat"
) -> list[str]:
    """The end of a run: per external entry, how often it started and fell back to random."""
    return [f"{label} {j + 1}, {specs[j]}: {describe_stats(stats[j])}" for j in sorted(stats)]


def simulate_record(
    game_name: str,
    bot_specs: Sequence[str],
    *,
    seed: int | str = 0,
    index: int = 0,
    options: dict[str, Any] | None = None,
    timer: DecisionTimer | None = None,
    bots: Sequence[Bot] | None = None,
) -> dict[str, Any]:
    """One finished game between bots, as a record; reproducible from (seed, index).

    ``bots`` (one per spec, e.g. ``Lineup.bots()``) are the players when given, so
    that a run keeps its external programs from game to game; otherwise they are
    made from ``bot_specs`` for this game alone and closed after it."""
    game = get_game(game_name)
    own = bots is None
    players = [make_bot(game_name, spec) for spec in bot_specs] if bots is None else list(bots)
    if len(players) != len(bot_specs):
        raise ValueError(f"{len(bot_specs)} specs but {len(players)} bots")
    options = game.resolve_options(len(players), options)
    for seat, bot in enumerate(players):
        if (announce := getattr(bot, "new_game", None)) is not None:
            announce(game=game_name, seat=seat, players=len(players), options=options,
                     number=index)
    server_seed, client_seed = simulated_seeds(seed, index)
    rng = random.Random(f"{seed}:{index}:bots")
    try:
        state, events = play_game(
            game, players, options, DiceStream(server_seed, client_seed), rng, timer=timer
        )
    finally:
        if own:
            for bot in players:
                if (close := getattr(bot, "close", None)) is not None:
                    close()
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


def _tournament_chunk(args: tuple) -> tuple[list[tuple[int, list[int]]], dict]:
    game_name, specs, seed, indices, options = args
    n = len(specs)
    out = []
    with Lineup(game_name, specs) as lineup:  # one process per external entry and worker
        for i in indices:
            rotation = i % n  # seat rotation: every kind plays from every seat
            seated = [specs[(s + rotation) % n] for s in range(n)]
            record = simulate_record(game_name, seated, seed=seed, index=i, options=options,
                                     bots=lineup.bots(rotation))
            winner_seat = record["placings"][0]
            # Seat s plays specs[(s + rotation) % n], so the winner is that index.
            out.append((i, [(winner_seat + rotation) % n]))
        return out, lineup.stats()


def _add_stats(total: dict[int, dict[str, int]], part: dict[int, dict[str, int]]) -> None:
    for j, stats in part.items():
        into = total.setdefault(j, {})
        for key, value in stats.items():
            into[key] = into.get(key, 0) + value


@dataclass
class TournamentResult:
    specs: list[str]
    games: int
    wins: dict[str, int]  # by kind spec, summed over seats of that kind
    seats: dict[str, int]  # how many seats each kind had per game
    # Per external ``specs`` entry: starts, decisions, fallbacks (summed over workers).
    external: dict[int, dict[str, int]] = field(default_factory=dict)
    workers: int = 1

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
        if self.external:
            copies = f", one copy per worker ({self.workers})" if self.workers > 1 else ""
            out.append(f"external bots (by --bots entry; seats rotate{copies}):")
            out.extend("  " + line for line in
                       external_report(self.specs, self.external, label="entry"))
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
    external: dict[int, dict[str, int]] = {}
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(_tournament_chunk, jobs))
    else:
        parts = [_tournament_chunk(job) for job in jobs]
    for part, stats in parts:
        results.extend(part)
        _add_stats(external, stats)
    wins: dict[str, int] = {}
    for _, (winner_index,) in results:
        spec = specs[winner_index]
        wins[spec] = wins.get(spec, 0) + 1
    seats = {spec: specs.count(spec) for spec in specs}
    return TournamentResult(specs=specs, games=games, wins=wins, seats=seats, external=external,
                            workers=len(jobs) if workers > 1 else 1)
