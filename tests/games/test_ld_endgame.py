"""Heads-up Liar's Dice endgames: the solver, the stored strategies, the exact best
response and the exploitability tool (games/bots/ld_endgame.py, ld_solver.py,
exploitability.py)."""

from __future__ import annotations

import gzip
import io
import json
import random
import re
from fractions import Fraction

import pytest

from games.bots import ld_endgame as E
from games.bots import ld_solver as S
from games.bots import make_bot
from games.bots.exploitability import endgame_best_responses
from games.bots.exploitability import main as exploitability_main
from games.bots.liars_dice import endgame_strategy
from games.cli import UsageError
from games.liars_dice import GAME as liars
from games.simulate import simulate_record
from tests.games.test_liars_dice_rules import table

POSITIONS = [(a, b) for a in range(1, E.MAX_SOLVED + 1) for b in range(1, E.MAX_SOLVED + 1)]


@pytest.fixture(scope="module", autouse=True)
def _parsed_positions_let_go():
    """E.stored_strategy (and E.stored_policy over it) keep every position parsed;
    this module parses all nine, about 800 MB: let them go when it ends, in
    whichever worker ran its tests."""
    yield
    E.stored_strategy.cache_clear()
    E.stored_policy.cache_clear()


# ---- the best response, on strategies whose answer is known by hand ----------------------


def test_best_response_against_a_bot_that_always_challenges_wins_every_round():
    # 1 v 1, the exploiter opens: "1 x its own face" is always true.
    always = lambda history, mover, hand: ((E.CHALLENGE, 1.0),)  # noqa: E731
    assert S.best_response(1, 1, 1, always, lose=0.0, win=1.0)[0] == pytest.approx(1.0)


def test_best_response_against_an_opener_who_bids_every_die_a_one():
    # The bot opens 2 x 1s, the highest bid: the exploiter must challenge, and the bid
    # is good only when both dice show 1.
    top = E.index_of(2, 1)
    opener = lambda history, mover, hand: ((top, 1.0),)  # noqa: E731
    value, pruned = S.best_response(1, 1, 0, opener, lose=0.0, win=1.0)
    assert pruned == 0.0
    assert value == pytest.approx(float(Fraction(35, 36)))


def test_best_response_uses_what_the_bids_reveal():
    """The bot opens "1 x its own die" truthfully, then challenges any raise. The
    exploiter remembers the bid, so it knows both dice: challenging always loses (the
    bid is true), and it wins exactly when some raise is true. With the bot on 1,
    1s are no longer wild and only 2 x 1 (the exploiter also on 1) is true: 1/6.
    With the bot on d in 2..6, a true raise exists when the exploiter's die e is 1
    (1 x 1), d (2 x d) or ranks above d (1 x e): 8 - d faces of six. Altogether
    (1/6)(1/6) + sum over d of (1/6)(8 - d)/6 = 21/36."""

    def truthful(history, mover, hand):
        if not history:
            return ((E.index_of(1, E.hands(1)[0][hand][0]), 1.0),)
        return ((E.CHALLENGE, 1.0),)

    value, _ = S.best_response(1, 1, 0, truthful, lose=0.0, win=1.0)
    assert value == pytest.approx(float(Fraction(21, 36)))


# ---- the solver ----------------------------------------------------------------------


def _round_exploitability(a, b, table, memory, values):
    """A perfect opponent's edge in one round of (a, b) against ``table`` (the later
    positions valued as ``values`` says), averaged over the two seats."""
    policy = E.policy_from(a, b, table, memory)
    lose, win = E.round_payoffs(a, b, values)
    as_opener, _ = S.best_response(a, b, 1, policy, lose, win, memory=memory)
    as_other, _ = S.best_response(a, b, 0, policy, lose, win, memory=memory)
    return as_opener, as_other


@pytest.mark.parametrize("memory", [0, 1])
def test_solver_value_lies_between_the_best_responses_and_they_are_close(memory):
    """The game's value v is unknown, but for any strategy s the best responses
    bracket it: 1 - BR(opener vs s) <= v <= BR(opener against s's other seat).
    A hundred iterations on 1 v 1 already pin it to under a point."""
    _, _, stored, value = S.solve_position((1, 1, {}, 100, memory))
    as_opener, as_other = _round_exploitability(1, 1, stored, memory, {})
    assert 1 - as_other - 1e-9 <= value <= as_opener + 1e-9
    assert (as_opener + as_other - 1) / 2 < 0.01


def _round_gaps(a: int, b: int, memories: tuple[int, int], iterations: int) -> dict[int, float]:
    """Position (a, b) solved alone with each number of earlier bids remembered,
    the smaller positions at their stored values: its round's exploitability."""
    values = {p: v for p, v in E.load()["values"].items() if sum(p) < a + b}
    gaps = {}
    for memory in memories:
        _, _, stored, _ = S.solve_position((a, b, values, iterations, memory))
        as_opener, as_other = _round_exploitability(a, b, stored, memory, values)
        gaps[memory] = (as_opener + as_other - 1) / 2
    return gaps


@pytest.mark.slow  # two solves and four best responses of 1 v 2
def test_remembering_the_previous_bid_is_what_closes_the_gap_in_1v2():
    """In 1 v 2 the state without earlier bids stays about 2% exploitable however long
    it is solved (a perfect-recall opponent reads the bids it forgets); with the
    previous bid it falls well below. Same iterations, computed both ways."""
    gaps = _round_gaps(1, 2, (0, 1), 150)
    assert gaps[1] < 0.01 < gaps[0]


@pytest.mark.slow  # two solves and four best responses of 2 v 2
def test_remembering_two_earlier_bids_is_what_closes_the_gap_in_2v2():
    """In 2 v 2 the state with only the previous bid stays about 0.7% exploitable
    (its round alone) however long it is solved; with the bid before it too it falls
    well below. Same iterations, computed both ways."""
    gaps = _round_gaps(2, 2, (1, 2), 100)
    assert gaps[2] < 0.005 < gaps[1]


def test_solver_is_deterministic():
    first = S.solve_position((1, 1, {}, 30, 1))
    again = S.solve_position((1, 1, {}, 30, 1))
    other = S.solve_position((1, 1, {}, 31, 1))
    assert first == again and first != other


def test_rebuilding_from_a_total_copies_the_smaller_positions_and_solves_the_others_alike():
    """--from-total: 1 v 1 is copied from the stored document, not solved, and the
    rebuild is the document a full build gives; a document solved with other
    iterations is refused."""
    iterations, memory = {2: 20, 3: 20}, {2: 1, 3: 1}
    full = S.solve_all(iterations, memory, log=lambda line: None, last=3)
    stored = json.loads(json.dumps(full))  # as read back from the file
    lines: list[str] = []
    again = S.solve_all(iterations, memory, log=lines.append, reuse=stored, start=3, last=3)
    assert json.loads(json.dumps(again)) == stored
    assert [line.partition(":")[0].partition(" (")[0] for line in lines] == [
        "kept 1 v 1 from the stored table", "solved 1 v 2", "solved 2 v 1"]
    with pytest.raises(ValueError):
        S.solve_all({2: 21, 3: 20}, memory, log=lines.append, reuse=stored, start=3, last=3)


def test_quantise_sums_to_a_thousand_and_drops_tiny_actions():
    pairs = E.quantise([1.0, 1.0, 1.0, 0.001], (E.CHALLENGE, 3, 4, 5))
    assert sum(w for _, w in pairs) == 1000
    assert [c for c, _ in pairs] == [E.CHALLENGE, 3, 4]


# ---- the stored table ------------------------------------------------------------------


def test_every_position_is_stored_with_a_value():
    stored = E.load()
    assert sorted(stored["values"]) == sorted(POSITIONS)
    assert all(0.0 < stored["values"][p] < 1.0 for p in POSITIONS)


@pytest.fixture(scope="module")
def whole_table():
    """The stored table parsed whole (E.read): 54 MB of JSON, about 4 s, so once."""
    return E.read()


def test_a_position_is_read_alone_and_as_the_whole_document_has_it(whole_table):
    """One line per position after the head, so a bot parses only what it plays
    (ld_endgame.stored_strategy); the solver's read() gives the whole document."""
    with gzip.open(E.DATA, "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    assert len(lines) == 1 + len(POSITIONS)
    assert "strategies" not in json.loads(lines[0])
    for a, b in POSITIONS:
        assert E.stored_strategy(a, b) == whole_table["strategies"][f"{a},{b}"]
    with pytest.raises(KeyError):
        E.stored_strategy(4, 4)


def test_the_stored_file_is_written_back_byte_for_byte(tmp_path, whole_table):
    E.write(whole_table, tmp_path / "again.json.gz")
    assert (tmp_path / "again.json.gz").read_bytes() == E.DATA.read_bytes()


@pytest.mark.parametrize("position", POSITIONS)
def test_stored_strategies_are_distributions_over_legal_actions(position):
    """Every stored state is one a round can reach (bids rising, 1s wild only
    while no remembered bid is on 1s), and every action is legal there."""
    a, b = position
    stored = E.load()
    nbids = 6 * (a + b)
    for state, by_hand in E.stored_strategy(a, b).items():
        found = re.fullmatch(r"((?:\d+\.)*\d+)?([wn])([01])", state)
        assert found, state
        bids = [int(x) for x in found[1].split(".")] if found[1] else []
        wild, mover = found[2] == "w", int(found[3])
        assert len(bids) <= stored["memory"][a + b] + 1 and bids == sorted(set(bids))
        assert not (wild and any(E.bid_of(i)[1] == 1 for i in bids))
        assert bids or (wild and mover == 0)
        assert len(E.hands((a, b)[mover])[0]) > max(map(int, by_hand))
        for pairs in by_hand.values():
            assert sum(w for _, w in pairs) == 1000
            for code, p in pairs:
                assert p > 0
                if code == E.CHALLENGE:
                    assert bids
                else:
                    assert (bids[-1] if bids else -1) < code < nbids


def test_state_key_keeps_the_last_bids_and_the_wild_ones_after_they_are_forgotten():
    ones = E.index_of(1, 1)
    history = (ones, E.index_of(2, 2), E.index_of(2, 3))
    assert E.state_key(history, 1) == ((E.index_of(2, 2), E.index_of(2, 3)), False, 1)
    assert E.state_key(history, 0) == ((E.index_of(2, 3),), False, 1)
    assert E.state_key(history[:1], 1) == ((ones,), False, 1)
    assert E.state_key((), 1) == ((), True, 0)


def test_stored_1v1_strategy_is_under_one_percent_exploitable():
    """Computed, not recorded: a perfect opponent's edge over the game value,
    averaged over the two seats, to the end of the game."""
    (as_opener, as_other), = endgame_best_responses("standard", max_dice=1).values()
    assert (as_opener + as_other - 1) / 2 < 0.01


def test_stored_1v2_and_2v1_strategies_are_under_one_percent_exploitable():
    """The positions the table used to miss by most (2% and 2.8%), to the end of
    the game, computed."""
    results = endgame_best_responses("standard", max_dice=2, max_total=3)
    for position in ((1, 2), (2, 1)):
        as_opener, as_other = results[position]
        assert (as_opener + as_other - 1) / 2 < 0.01


def test_stored_2v2_strategy_is_under_one_percent_exploitable():
    """2 v 2 was 1.7% exploitable with one earlier bid remembered; with two (and
    1 v 2, 2 v 1 solved the same way) it is well under 1%, to the end of the game,
    computed. TABLE=4 makes standard play it from the table."""
    results = endgame_best_responses("standard:TABLE=4", max_dice=2)
    as_opener, as_other = results[(2, 2)]
    assert (as_opener + as_other - 1) / 2 < 0.01


def test_prob_is_far_more_exploitable_than_the_table():
    (as_opener, as_other), = endgame_best_responses("prob", max_dice=1).values()
    assert (as_opener + as_other - 1) / 2 > 0.1


# ---- standard plays the table ---------------------------------------------------------------


def test_standard_samples_the_stored_strategy_in_a_solved_position():
    state = table({0: "35", 1: "4"}, bids=[(0, 1, 5)])
    view, legal = liars.view_for(state, 1), liars.legal_actions(state, 1)
    solved = endgame_strategy(view)
    assert solved is not None
    support = {code for code, _ in solved}
    bot = make_bot("liars_dice", "standard")
    rng = random.Random(3)
    for _ in range(30):
        action = bot.choose(view, legal, rng)
        assert action in legal
        code = E.CHALLENGE if action["type"] == "challenge" else E.index_of(
            action["quantity"], action["face"])
        assert code in support


def test_standard_uses_the_table_only_heads_up_with_three_dice_a_side_or_fewer():
    assert endgame_strategy(liars.view_for(table({0: "3534", 1: "4"}), 0)) is None
    assert endgame_strategy(liars.view_for(table({0: "35", 1: "4", 2: "6"}), 0)) is None
    assert endgame_strategy(liars.view_for(table({0: "353", 1: "466"}), 0)) is not None


def test_standard_keeps_its_own_play_above_its_table_limit():
    # 3 v 3 is solved but above TABLE (3 dice in all): standard plays as with no
    # table at all; with TABLE=6 (every solved position) it plays the table's support.
    state = table({0: "353", 1: "466"}, bids=[(0, 2, 5)])
    view, legal = liars.view_for(state, 1), liars.legal_actions(state, 1)
    plain = make_bot("liars_dice", "standard:TABLE=0").choose(view, legal, random.Random(4))
    assert make_bot("liars_dice", "standard").choose(view, legal, random.Random(4)) == plain
    support = {code for code, _ in endgame_strategy(view)}
    for seed in range(10):
        action = make_bot("liars_dice", "standard:TABLE=6").choose(view, legal, random.Random(seed))
        code = E.CHALLENGE if action["type"] == "challenge" else E.index_of(
            action["quantity"], action["face"])
        assert code in support


def test_games_with_the_table_are_reproducible_from_their_seed():
    options = {"dice_per_player": 3}
    first = simulate_record("liars_dice", ["standard", "bayes"], seed=5, options=options)
    again = simulate_record("liars_dice", ["standard", "bayes"], seed=5, options=options)
    assert first["events"] == again["events"]


# ---- the tool ----------------------------------------------------------------------------


def test_exploitability_prints_every_position_for_every_bot():
    out = io.StringIO()
    assert exploitability_main(["--bots", "standard,random", "--max-dice", "1"], out) == 0
    text = out.getvalue()
    assert text.count("1 v 1") == 2 and "worst position" in text


@pytest.mark.parametrize("argv", [["--max-dice", "9"], ["--bots", "nobody"],
                                  ["--bots", "external:python3 x.py"], ["--bots", ","]])
def test_exploitability_refuses_bad_arguments(argv):
    with pytest.raises(UsageError):
        exploitability_main(argv, io.StringIO())


@pytest.mark.slow  # starts Django twice
def test_manage_py_exploitability_as_a_user_runs_it():
    from tests.servers import manage

    result = manage("exploitability", "--bots", "prob", "--max-dice", "1", timeout=600)
    assert result.returncode == 0, result.stderr
    assert "1 v 1" in result.stdout and "worst position" in result.stdout
    refused = manage("exploitability", "--max-dice", "0", timeout=600)
    assert refused.returncode == 2 and "--max-dice" in refused.stderr
