"""The contract every engine must honour, run for every registered game and
every player count through seeded random playouts (OpenSpiel's shared checks)."""

from __future__ import annotations

import copy
import random

import pytest

from games.base import GameError, IllegalAction
from games.bots import make_bot
from games.fairness import DiceStream, simulated_seeds
from games.record import RecordError, dice_of_record, replay
from games.registry import game_names, get_game
from games.simulate import simulate_record

MAX_STEPS = 20_000
SEEDS = range(3)


def _setups():
    for name in game_names():
        game = get_game(name)
        for n in range(game.min_players, game.max_players + 1):
            yield pytest.param(name, n, id=f"{name}-{n}p")


SETUPS = list(_setups())


def playout(name: str, n: int, seed: int):
    """A random playout that checks every step; returns the visited states."""
    game = get_game(name)
    server_seed, client_seed = simulated_seeds(seed, n)
    dice = DiceStream(server_seed, client_seed)
    rng = random.Random(seed)
    state = game.initial_state(n, {})
    seen = [state]
    for _ in range(MAX_STEPS):
        turn = game.turn(state)
        if turn is None:
            return seen
        for other in range(n):
            if other != turn.seat:
                assert game.legal_actions(state, other) == [], "only the seat to act may act"
        if turn.seat is None or turn.is_roll:
            legal = [{"type": "roll"}]
        else:
            legal = game.legal_actions(state, turn.seat)
            assert legal, "a pending decision always has a legal action"
            if turn.forced is not None:
                assert turn.forced in legal
        drawn = dice.draw(turn.dice) if turn.dice else None
        for action in legal:
            full = {**action, "dice": drawn} if drawn else action
            game.apply(state, turn.seat, full)  # every legal action applies
        action = rng.choice(legal)
        if drawn:
            action = {**action, "dice": drawn}
        state, events = game.apply(state, turn.seat, action)
        assert events, "every action produces at least one record event"
        seen.append(state)
    raise AssertionError(f"{name} with {n} players did not end in {MAX_STEPS} steps")


@pytest.mark.parametrize("name,n", SETUPS)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_playout_applies_every_legal_action_and_ends(name, n, seed):
    game = get_game(name)
    states = playout(name, n, seed)
    final = states[-1]
    placings = game.placings(final)
    assert sorted(placings) == list(range(n)), "a finished game places every seat once"


@pytest.mark.parametrize("name,n", SETUPS)
def test_action_out_of_turn_is_refused_and_changes_nothing(name, n):
    game = get_game(name)
    state = game.initial_state(n, {})
    turn = game.turn(state)
    snapshot = copy.deepcopy(state)
    wrong = (turn.seat + 1) % n if turn.seat is not None else 0
    action = {"type": "roll", "dice": [1] * max(1, turn.dice)}
    if turn.seat is not None:
        with pytest.raises(IllegalAction):
            game.apply(state, wrong, action)
    with pytest.raises(GameError):
        game.apply(state, turn.seat, {"type": "no-such-action"})
    assert state == snapshot


@pytest.mark.parametrize("name,n", SETUPS)
@pytest.mark.parametrize("bots", ["random", "standard"])
def test_replay_of_a_record_reproduces_the_final_state(name, n, bots):
    record = simulate_record(name, [bots] * n, seed=7, index=n)
    game = get_game(name)
    result = replay(record)
    assert result.placings == record["placings"]
    assert game.turn(result.state) is None
    assert result.dice_checked == sum(len(d) for _, d in dice_of_record(record))
    # Replaying the same actions by hand reaches an equal state.
    server_seed, client_seed = simulated_seeds(7, n)
    rebuilt = game.initial_state(n, record["options"])
    for event in record["events"]:
        mapped = game.action_from_event(event)
        if mapped is not None:
            rebuilt, _ = game.apply(rebuilt, *mapped)
    assert rebuilt == result.state


@pytest.mark.parametrize("name,n", SETUPS)
def test_fairness_verifier_rejects_any_changed_die(name, n):
    record = simulate_record(name, ["random"] * n, seed=11, index=n)
    replay(record)
    rolled = dice_of_record(record)
    rng = random.Random(n)
    for _ in range(5):
        tampered = copy.deepcopy(record)
        index, dice = rng.choice(rolled)
        event = tampered["events"][index]
        position = rng.randrange(len(dice))
        _change_die(event, position, rng)
        with pytest.raises(RecordError):
            replay(tampered)


def _change_die(event, position, rng):
    """Change the ``position``-th die of a dice event to another face."""
    if "value" in event:
        event["value"] = rng.choice([f for f in range(1, 7) if f != event["value"]])
        return
    for seat in sorted(event["dice"], key=int):
        hand = event["dice"][seat]
        if position < len(hand):
            hand[position] = rng.choice([f for f in range(1, 7) if f != hand[position]])
            return
        position -= len(hand)


@pytest.mark.parametrize("name,n", SETUPS)
def test_view_never_depends_on_what_the_seat_cannot_see(name, n):
    game = get_game(name)
    rng = random.Random(5)
    for state in playout(name, n, seed=3)[::7]:
        for seat in [*range(n), None]:
            view = game.view_for(state, seat)
            for _ in range(3):
                other = game.with_hidden_redrawn(state, seat, rng)
                assert game.view_for(other, seat) == view


@pytest.mark.parametrize("name", game_names())
def test_unknown_option_is_a_clear_error(name):
    game = get_game(name)
    with pytest.raises(GameError, match="Unknown option"):
        game.initial_state(game.min_players, {"no_such_option": 1})


@pytest.mark.parametrize("name", game_names())
def test_bots_choose_only_legal_actions(name):
    game = get_game(name)
    from games.bots import kinds_for

    for kind in kinds_for(name):
        if kind == "external":
            continue
        bot = make_bot(name, kind)
        state = game.initial_state(game.max_players, {})
        rng = random.Random(0)
        dice = DiceStream(*simulated_seeds(kind, 1))
        for _ in range(300):
            turn = game.turn(state)
            if turn is None:
                break
            if turn.seat is None or turn.is_roll:
                action = {"type": "roll", "dice": dice.draw(turn.dice)}
            else:
                legal = game.legal_actions(state, turn.seat)
                action = bot.choose(game.view_for(state, turn.seat), legal, rng)
                assert action in legal, f"{kind} chose {action}, not among {legal}"
            state, _ = game.apply(state, turn.seat, action)


@pytest.mark.parametrize("name,n", SETUPS)
def test_live_events_never_carry_another_seats_dice(name, n):
    """``event_for`` is how events leave the server live: a deal (an event with
    dice per seat) shows a seat only its own cup, and a spectator none."""
    game = get_game(name)
    record = simulate_record(name, ["random"] * n, seed=13, index=n)
    for event in record["events"]:
        if isinstance(event.get("dice"), dict):
            for seat in range(n):
                shown = game.event_for(event, seat)["dice"]
                assert set(shown) <= {str(seat)}
                if str(seat) in event["dice"]:
                    assert shown[str(seat)] == event["dice"][str(seat)]
            assert game.event_for(event, None)["dice"] == {}


@pytest.mark.parametrize("name,n", SETUPS)
def test_over_means_every_seat_is_placed_and_no_one_is_to_act(name, n):
    game = get_game(name)
    for state in playout(name, n, seed=n):
        over = game.turn(state) is None
        assert over == (len(game.placings(state)) == n)
        assert game.view_for(state, None)["over"] is over
        assert all(game.legal_actions(state, seat) == [] for seat in range(n)) or not over
