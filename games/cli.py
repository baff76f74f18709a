"""Command-line front ends for the simulator, the replayer and tournaments.

Pure argparse so the engines stay free of Django; the ``manage.py`` commands in
``rooms/management/commands`` are thin wrappers that call ``main_*`` here.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from .base import GameError
from .bots import UnknownBot, make_bot, split_specs
from .record import RecordError, dumps, loads, replay
from .registry import game_names, get_game
from .simulate import Lineup, external_report, run_tournament, simulate_record


class UsageError(Exception):
    """Bad command-line arguments: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage and exits; we want one line
        raise UsageError(message)


def parse_option_value(text: str) -> Any:
    """``true``/``false``/numbers/JSON become values; anything else stays a string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _game_and_bots(args: argparse.Namespace) -> tuple[str, list[str], dict[str, Any]]:
    if args.game not in game_names():
        raise UsageError(f"unknown game {args.game!r}; choose from {', '.join(game_names())}")
    game = get_game(args.game)
    if not game.min_players <= args.players <= game.max_players:
        raise UsageError(
            f"{args.game} takes {game.min_players} to {game.max_players} players,"
            f" not {args.players}"
        )
    specs = split_specs(args.bots) if args.bots else ["standard"]
    if len(specs) == 1:
        specs = specs * args.players
    if len(specs) != args.players:
        raise UsageError(f"--bots names {len(specs)} kinds for {args.players} players")
    options: dict[str, Any] = {}
    for item in args.option or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--option wants KEY=VALUE, not {item!r}")
        options[key] = parse_option_value(value)
    try:
        for spec in dict.fromkeys(specs):
            make_bot(args.game, spec)
        game.resolve_options(args.players, options)
    except (UnknownBot, GameError) as exc:
        raise UsageError(str(exc)) from None
    return args.game, specs, options


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="liars_dice, ludo or snakes")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--bots", default="", help="kind per seat, comma-separated (a kind's own"
                        " name=value parameters may follow it: standard:safe=8,risk=0.8)")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE")


def simulate_main(argv: list[str], out: TextIO = sys.stdout, err: TextIO | None = None) -> int:
    """Whole games between computer players: one record per game (JSON Lines) on standard
    output; at the end, how each external bot fared, on standard error."""
    parser = _Parser(prog="simulate")
    _common(parser)
    parser.add_argument("--games", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    game, specs, options = _game_and_bots(args)
    with Lineup(game, specs) as lineup:  # an external program starts once for all the games
        for i in range(args.games):
            record = simulate_record(game, specs, seed=args.seed, index=i, options=options,
                                     bots=lineup.bots())
            out.write(dumps(record) + "\n")
    if stats := lineup.stats():
        err = err or sys.stderr
        err.write(f"external bots, {args.games} games:\n")
        for line in external_report(specs, stats):
            err.write("  " + line + "\n")
    return 0


def tournament_main(argv: list[str], out: TextIO = sys.stdout) -> int:
    parser = _Parser(prog="tournament")
    _common(parser)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=None,
                        help="processes (default 2; 1 when a bot is external:)")
    args = parser.parse_args(argv)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    game, specs, options = _game_and_bots(args)
    workers = args.workers
    if workers is None:  # an external program starts once per run, not once per worker
        workers = 1 if any(spec.partition(":")[0] == "external" for spec in specs) else 2
    result = run_tournament(
        game, specs, args.games, seed=args.seed, options=options, workers=max(1, workers)
    )
    out.write(f"{game}, {args.players} players, {args.games} seat-rotated games\n")
    for line in result.lines():
        out.write(line + "\n")
    return 0


def replay_main(argv: list[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Check records (one JSON object, or JSON Lines). Exit 0 when all pass."""
    parser = _Parser(prog="replay")
    parser.add_argument("file", help="a record file, or - for standard input")
    args = parser.parse_args(argv)
    try:
        text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror}") from None
    stripped = text.strip()
    try:
        documents = [loads(stripped)] if stripped.startswith("{") and "\n{" not in stripped else [
            loads(line) for line in stripped.splitlines() if line.strip()
        ]
        if not documents:
            raise RecordError("No record given")
        for number, record in enumerate(documents, 1):
            result = replay(record)
            dice = "not yet revealed" if result.dice_checked is None else result.dice_checked
            out.write(
                f"record {number}: ok ({record['game']}, {len(record['events'])} events,"
                f" dice checked: {dice}, placings {result.placings})\n"
            )
    except RecordError as exc:
        err.write(f"record rejected: {exc}\n")
        return 1
    return 0


def run(main, argv: list[str]) -> int:
    try:
        return main(argv)
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
