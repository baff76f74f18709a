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
from games.cli import simulate_main, tournament_main
from games.fairness import DiceStream, simulated_seeds
from games.registry import get_game
from games.simulate import Lineup, play_game, run_tournament, simulate_record

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


def script_command(tmp_path, name, source, *args) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return " ".join(shlex.quote(str(part)) for part in (sys.executable, path, *args))


def script_bot(tmp_path, name, source, report=None, **kwargs) -> ExternalBot:
    return ExternalBot(script_command(tmp_path, name, source), report=report, **kwargs)


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
    # SLOW gets a short start-up grace, so that it times out on its first answer too,
    # in little time; the others answer (wrongly) or exit well within the usual one.
    grace = {"startup_grace": 0.5} if name == "slow" else {}
    bot = script_bot(tmp_path, name, source, report, **grace)
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


# ---- a run: one process for every game ---------------------------------------------

# Sleeps at start-up like a program behind a slow interpreter wrapper, then plays;
# logs every line it is sent (type, game number, seat) to the file named in argv[1].
SLOW_START = """
import json, sys, time
time.sleep(1.5)
log = open(sys.argv[1], "a", buffering=1)
for line in sys.stdin:
    message = json.loads(line)
    log.write(f"{message['type']} {message.get('number', '-')} {message['seat']}\\n")
    if message["type"] == "decide":
        print(json.dumps(message["legal"][0]), flush=True)
"""

# Answers its first question, then exits at the second: every process does the same.
CRASH_SECOND = """
import json, sys
asked = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "decide":
        continue
    asked += 1
    if asked == 2:
        raise SystemExit(4)
    print(json.dumps(message["legal"][0]), flush=True)
"""

# Breaks the rule "do not answer new_game", then plays properly.
CHATTY = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "new_game":
        print("hello, game " + str(message["number"]), flush=True)
    elif message["type"] == "decide":
        print(json.dumps(message["legal"][0]), flush=True)
"""


def run_games(lineup, games, specs, rotate=False):
    """Games of a run, as simulate and tournaments play them; each game's starts."""
    starts = []
    for index in range(games):
        bot = next(iter(lineup.kept.values()))
        before = bot.starts
        simulate_record("liars_dice", specs, seed="run", index=index,
                        bots=lineup.bots(index % len(specs) if rotate else 0))
        starts.append(bot.starts - before)
    return starts


def read_log(path):
    return [line.split() for line in path.read_text().splitlines()]


def test_slow_starting_bot_keeps_its_first_decision_and_starts_once(tmp_path):
    log = tmp_path / "log.txt"
    specs = [f"external:{script_command(tmp_path, 'slow_start', SLOW_START, log)}", "prob"]
    with Lineup("liars_dice", specs) as lineup:
        starts = run_games(lineup, 3, specs)
        bot = lineup.kept[0]
        assert bot.failures == [] and bot.decisions > 0
        assert starts == [1, 0, 0]
        stats = lineup.stats()[0]
    assert stats["starts"] == 1 and stats["random"] == 0 and stats["timeouts"] == 0
    lines = read_log(log)
    # Every game is announced before its first question, and the seat is the one asked.
    announced = [line for line in lines if line[0] == "new_game"]
    assert [line[1] for line in announced] == ["0", "1", "2"]
    assert lines[0][0] == "new_game"
    seat = None
    for kind, _number, asked_seat in lines:
        if kind == "new_game":
            seat = asked_seat
        else:
            assert kind == "decide" and asked_seat == seat


def test_without_the_grace_the_slow_start_costs_the_first_decision(tmp_path):
    """The control for the test above: 1.5 s of start-up cannot fit in 1 s."""
    log = tmp_path / "log.txt"
    bot = ExternalBot(script_command(tmp_path, "slow_start", SLOW_START, log),
                      report=io.StringIO(), startup_grace=0)
    bot.new_game(game="liars_dice", seat=0, players=2, number=0)
    play("liars_dice", [bot, make_bot("liars_dice", "prob")])
    assert "no answer within 1 s" in bot.failures[0]
    assert bot.counts["timeouts"] >= 1
    bot.close()


def test_tournament_keeps_one_process_per_entry_as_seats_rotate(tmp_path):
    log = tmp_path / "log.txt"
    specs = [f"external:{script_command(tmp_path, 'slow_start', SLOW_START, log)}", "random"]
    result = run_tournament("liars_dice", specs, 4, seed="rotate", workers=1)
    assert result.external[0]["starts"] == 1 and result.external[0]["random"] == 0
    announced = [line for line in read_log(log) if line[0] == "new_game"]
    assert [(line[1], line[2]) for line in announced] == [
        ("0", "0"), ("1", "1"), ("2", "0"), ("3", "1")]
    text = "\n".join(result.lines())
    assert "entry 1, external:" in text and ": 1 start, " in text
    assert "0 played at random instead" in text


def test_a_crash_is_counted_and_the_program_restarted(tmp_path):
    specs = [f"external:{script_command(tmp_path, 'crash_second', CRASH_SECOND)}", "prob"]
    with Lineup("liars_dice", specs) as lineup:
        bot = lineup.kept[0]
        bot.report = io.StringIO()
        starts = run_games(lineup, 2, specs)
        stats = lineup.stats()[0]
    assert all(n <= ExternalBot.MAX_STARTS for n in starts)
    assert stats["starts"] == sum(starts) >= 2  # restarted after its first crash
    assert stats["exits"] >= 1 and "exited (status 4)" in bot.failures[0]
    answered = stats["decisions"] - stats["random"]
    assert 2 <= answered <= stats["starts"]  # each process answered once before crashing
    assert stats["random"] == sum(stats[k] for k in ("timeouts", "exits", "bad answers",
                                                     "not asked"))


def test_a_program_that_keeps_crashing_is_started_a_limited_number_of_times(tmp_path):
    specs = [f"external:{script_command(tmp_path, 'crashing', CRASHING)}", "prob"]
    with Lineup("liars_dice", specs) as lineup:
        bot = lineup.kept[0]
        bot.report = io.StringIO()
        bot.MAX_RUN_STARTS = 5
        starts = run_games(lineup, 4, specs)
        assert starts == [ExternalBot.MAX_STARTS, 2, 0, 0]  # 3 a game, 5 in all
        assert bot.starts == 5 and bot.counts["exits"] == 5
        asked_before, not_asked_before = bot.decisions, bot.counts["not asked"]
        assert run_games(lineup, 1, specs) == [0]
        assert bot.decisions > asked_before
        assert bot.counts["not asked"] - not_asked_before == bot.decisions - asked_before
        assert "this run" in bot.failures[-1]


def test_a_line_written_unasked_is_not_taken_for_the_next_answer(tmp_path):
    """A running program is told of the next game at once; its (forbidden) answer,
    once it has arrived, is dropped before the next question."""
    bot = script_bot(tmp_path, "chatty", CHATTY, io.StringIO())
    play("liars_dice", [bot, make_bot("liars_dice", "random")])  # running, no game announced
    assert bot.failures == []
    bot.new_game(game="liars_dice", seat=0, players=2, number=1)
    # Wait (on the queue, not the clock) until its greeting has arrived.
    greeting = bot._lines.get(timeout=30)
    assert greeting.startswith("hello, game 1")
    bot._lines.put(greeting)
    play("liars_dice", [bot, make_bot("liars_dice", "random")], seed=1)
    assert bot.failures == [] and bot.starts == 1
    bot.close()


def test_simulate_reports_each_external_seat_at_the_end(tmp_path):
    command = script_command(tmp_path, "crash_second", CRASH_SECOND)
    out, err = io.StringIO(), io.StringIO()
    code = simulate_main(["liars_dice", "--players", "2", "--games", "2",
                          "--bots", f"external:{command},prob"], out, err)
    assert code == 0
    assert len(out.getvalue().splitlines()) == 2  # the records alone on standard output
    report = err.getvalue().splitlines()
    summary = [line for line in report if line.startswith("  seat 1, external:")]
    assert len(summary) == 1 and "exits" in summary[0] and " start" in summary[0]
    assert "external bots, 2 games:" in report
    assert not any("seat 2" in line for line in report)  # prob is not an external bot


def test_tournament_command_starts_an_external_bot_once_by_default(tmp_path):
    log = tmp_path / "log.txt"
    command = script_command(tmp_path, "slow_start", SLOW_START, log)
    out = io.StringIO()
    code = tournament_main(["liars_dice", "--players", "2", "--games", "4",
                            "--bots", f"external:{command},random"], out)
    assert code == 0
    text = out.getvalue()
    assert "external bots (by --bots entry; seats rotate):" in text  # one worker
    assert ": 1 start, " in text and "0 played at random instead" in text
    assert len([line for line in read_log(log) if line[0] == "new_game"]) == 4
