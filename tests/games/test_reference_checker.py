"""Records from our engines pass an independent reading of the rules
(tests/reference_checker.py shares no code with games/), for every game, player
count and option, and a changed die or move fails it."""

from __future__ import annotations

import copy

import pytest

from games.registry import game_names, get_game
from games.simulate import simulate_record
from tests.reference_checker import check

SETUPS = [
    ("snakes", n, opts) for n in (2, 3, 4) for opts in ({}, {"board": "gentle"})
] + [
    ("liars_dice", n, {}) for n in range(2, 7)
] + [("liars_dice", 3, {"first_player": 2})] + [
    ("ludo", n, {"home_bonus_roll": bonus}) for n in range(2, 7) for bonus in (True, False)
]


@pytest.mark.slow  # whole games checked move by move: `make test`, not `make check`
@pytest.mark.parametrize("game,players,options", SETUPS)
@pytest.mark.parametrize("bots", ["random", "standard"])
def test_simulated_records_pass_the_independent_checker(game, players, options, bots):
    for index in range(3):
        record = simulate_record(game, [bots] * players, seed="ref", index=index,
                                 options=options)
        assert check(record) is None, check(record)


@pytest.mark.parametrize("game,players", [("snakes", 3), ("liars_dice", 3), ("ludo", 4)])
def test_the_checker_rejects_a_changed_die(game, players):
    record = simulate_record(game, ["random"] * players, seed="ref-bad", index=0)
    tampered = copy.deepcopy(record)
    for event in tampered["events"]:
        if event["type"] == "roll":
            event["value"] = event["value"] % 6 + 1
            break
        if event["type"] == "round":
            hand = event["dice"]["0"]
            hand[0] = hand[0] % 6 + 1
            break
    assert check(tampered) is not None


def test_the_checker_rejects_a_wrong_placing():
    record = simulate_record("snakes", ["random"] * 3, seed="ref-bad", index=1)
    record["placings"] = record["placings"][::-1]
    assert check(record) is not None


def test_the_setups_cover_every_registered_game_at_every_player_count():
    covered = {(g, n) for g, n, _ in SETUPS}
    for name in game_names():
        game = get_game(name)
        for n in range(game.min_players, game.max_players + 1):
            assert (name, n) in covered, f"{name} with {n} players is never checked"
