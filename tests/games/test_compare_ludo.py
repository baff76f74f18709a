"""bench/compare_ludo.py's paired games: every seat rolls from its own stream, so
a seat's dice do not depend on what the others play."""

from tests.servers import load_bench

compare = load_bench("compare_ludo")


def rolls_by_seat(specs: list[str], index: int) -> dict[int, list[int]]:
    _, events = compare.play(specs, "test", index)
    rolls: dict[int, list[int]] = {}
    for event in events:
        if event["type"] == "roll":
            rolls.setdefault(event["seat"], []).append(event["value"])
    return rolls


def test_a_seats_dice_are_the_same_whatever_the_others_play():
    for index in range(3):
        careful = rolls_by_seat(["standard", "priority", "priority", "priority"], index)
        careless = rolls_by_seat(["random", "priority", "priority", "priority"], index)
        assert careful != careless  # the games went differently...
        for seat in range(4):  # ...but each seat's k-th die is the same in both
            common = min(len(careful[seat]), len(careless[seat]))
            assert common > 10
            assert careful[seat][:common] == careless[seat][:common]


def test_every_candidate_plays_the_baselines_games():
    rows = compare.results(["standard", "random", "standard"], "priority", 4, "test", range(4))
    assert len(rows) == 4
    assert all(len(row) == 3 and set(row) <= {0, 1} for row in rows)
    # The same kind on the same games wins the same ones: the games are paired.
    assert [row[0] for row in rows] == [row[2] for row in rows]
