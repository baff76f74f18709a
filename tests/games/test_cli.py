"""`manage.py simulate`, `replay` and `tournament` as a user runs them."""

from __future__ import annotations

import json

import pytest

from games.bots import split_specs
from games.record import replay
from tests.servers import manage


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulate_prints_one_valid_record_per_game(players):
    result = manage("simulate", "snakes", "--players", str(players), "--games", "3",
                    "--seed", "42")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 3
    for line in lines:
        record = json.loads(line)
        assert record["status"] == "finished" and len(record["seats"]) == players
        assert replay(record).dice_checked > 0


def test_simulate_is_reproducible_from_its_seed():
    first = manage("simulate", "snakes", "--players", "2", "--seed", "7").stdout
    again = manage("simulate", "snakes", "--players", "2", "--seed", "7").stdout
    other = manage("simulate", "snakes", "--players", "2", "--seed", "8").stdout
    assert first == again and first != other


def test_replay_accepts_simulated_records_and_rejects_a_changed_die(tmp_path):
    out = manage("simulate", "snakes", "--players", "2", "--games", "2").stdout
    assert manage("replay", "-", stdin=out).returncode == 0
    record = json.loads(out.splitlines()[0])
    roll = next(i for i, e in enumerate(record["events"]) if e["type"] == "roll")
    record["events"][roll]["value"] = record["events"][roll]["value"] % 6 + 1
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    result = manage("replay", str(path))
    assert result.returncode == 1
    assert "rejected" in result.stderr and "event" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "chess", "--players", "2"],
        ["simulate", "snakes", "--players", "9"],
        ["simulate", "snakes", "--players", "2", "--bots", "genius"],
        ["simulate", "ludo", "--players", "2", "--bots", "standard:courage=2,random"],
        ["simulate", "snakes", "--players", "2", "--option", "nope=1"],
        ["simulate", "snakes", "--players", "2", "--option", "novalue"],
        ["simulate", "snakes"],
        ["replay", "/no/such/file.json"],
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(args):
    result = manage(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1


def test_tournament_prints_win_rates_with_intervals():
    result = manage("tournament", "snakes", "--players", "2", "--bots", "standard,random",
                    "--games", "40", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "95% CI" in result.stdout and "standard" in result.stdout


def test_split_specs_keeps_a_kinds_own_parameters_with_it():
    assert split_specs("standard:safe=8,risk=0.8,priority,prob:0.3") == [
        "standard:safe=8,risk=0.8", "priority", "prob:0.3"]
    assert split_specs("standard,random") == ["standard", "random"]
    assert split_specs("risk=0.8,standard") == ["risk=0.8", "standard"]  # nothing to continue
    assert split_specs("standard,,random") == ["standard", "", "random"]


def test_tournament_takes_a_kind_with_several_parameters():
    result = manage("tournament", "ludo", "--players", "2", "--bots",
                    "standard:safe=8,risk=0.8,priority", "--games", "2", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "standard:safe=8,risk=0.8 x1" in result.stdout
