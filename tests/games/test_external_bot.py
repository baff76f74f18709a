"""External bots: a process speaking JSON Lines plays whole games, and a broken
one is replaced by random moves, reported, and never makes the table hang."""

from __future__ import annotations

import io
import random
import shlex
import sys
import time

import pytest

from games.bots import make_bot
from games.bots.external import ExternalBot
from games.fairness import DiceStream, simulated_seeds
from games.registry import get_game
from games.simulate import play_game

GOOD = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    assert message["type"] == "decide" and message["view"]["game"] == message["game"]
    print(json.dumps(message["legal"][-1 if len(message["legal"]) < 3 else 1]), flush=True)
"""

CRASHING = """
import sys
sys.stdin.readline()
raise SystemExit(3)
"""

SLOW = """
import json, sys, time
for line in sys.stdin:
    time.sleep(5)
    print(json.dumps(json.loads(line)["legal"][0]), flush=True)
"""

GARBAGE = """
import json, sys
for n, line in enumerate(sys.stdin):
    if n % 2:
        print("hello there", flush=True)
    else:
        print(json.dumps({"type": "bid", "quantity": 99, "face": 9}), flush=True)
"""


def script_bot(tmp_path, name, source, report=None) -> ExternalBot:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return ExternalBot(f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}", report=report)


def play(game_name, bots, seed=0):
    game = get_game(game_name)
    dice = DiceStream(*simulated_seeds(f"external-{seed}", len(bots)))
    started = time.monotonic()
    state, events = play_game(game, bots, {}, dice, random.Random(seed))
    return game, state, time.monotonic() - started


def test_spec_makes_an_external_bot():
    bot = make_bot("liars_dice", "external:python3 -u my bot.py")
    assert isinstance(bot, ExternalBot) and bot.argv == ["python3", "-u", "my", "bot.py"]


def test_well_behaved_bot_plays_a_game_to_the_end(tmp_path):
    game_name = "liars_dice"
    report = io.StringIO()
    bot = script_bot(tmp_path, "good", GOOD, report)
    bots = [bot, make_bot(game_name, "random")]
    game, state, _ = play(game_name, bots)
    assert game.turn(state) is None
    assert bot.decisions > 0 and bot.failures == [] and report.getvalue() == ""
    proc = bot._proc
    bot.close()
    assert proc.poll() is not None


def test_the_process_starts_once_and_lazily(tmp_path):
    bot = script_bot(tmp_path, "good", GOOD)
    assert bot._proc is None
    play("liars_dice", [bot, make_bot("liars_dice", "prob")])
    assert bot._starts == 1
    bot.close()


@pytest.mark.parametrize(
    "name,source,reason",
    [
        ("crashing", CRASHING, "exited (status 3)"),
        ("slow", SLOW, "no answer within 1 s"),
        ("garbage", GARBAGE, "not legal"),
    ],
)
def test_broken_bot_is_replaced_by_random_and_reported(tmp_path, name, source, reason):
    report = io.StringIO()
    bot = script_bot(tmp_path, name, source, report)
    game, state, elapsed = play("liars_dice", [bot, make_bot("liars_dice", "prob")])
    assert game.turn(state) is None
    assert elapsed < 10
    assert bot.failures and reason in bot.failures[0]
    assert len(bot.failures) == bot.decisions  # every decision fell back to random
    lines = report.getvalue().splitlines()
    assert lines and all(line.startswith("external bot ") for line in lines)
    assert len(lines) == min(len(bot.failures), 10)
    bot.close()


def test_garbage_bot_is_told_illegal_from_malformed(tmp_path):
    bot = script_bot(tmp_path, "garbage", GARBAGE, io.StringIO())
    play("liars_dice", [bot, make_bot("liars_dice", "random")])
    assert any("not legal" in f for f in bot.failures)
    assert any("not JSON" in f for f in bot.failures)
    bot.close()


def test_missing_program_is_reported_not_raised(tmp_path):
    report = io.StringIO()
    bot = ExternalBot(str(tmp_path / "no-such-program"), report=report)
    game, state, _ = play("liars_dice", [bot, make_bot("liars_dice", "random")])
    assert game.turn(state) is None
    assert bot.failures[0].startswith("cannot start")
