"""Whatever a client sends, an engine answers with a GameError or applies it:
never another exception, never a changed state on refusal (the consumer turns
GameError into a readable `illegal_action`; anything else would be a crash)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import GameError
from games.registry import game_names, get_game
from games.simulate import simulate_record

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=4),
    max_leaves=8,
)
ACTION_TYPES = ["roll", "move", "bid", "challenge", "pass", "", "ROLL"]
actions = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"type": st.sampled_from(ACTION_TYPES)},
        optional={
            "token": json_values | st.integers(-2, 6),
            "quantity": json_values | st.integers(-1, 40),
            "face": json_values | st.integers(-1, 8),
            "dice": json_values | st.lists(st.integers(-1, 8), max_size=40),
        },
    ),
)


def states_of(name: str, players: int):
    """A few real positions of a game: replay a simulated record part way."""
    game = get_game(name)
    record = simulate_record(name, ["random"] * players, seed="fuzz", index=players)
    state = game.initial_state(players, record["options"])
    out = [state]
    for event in record["events"]:
        mapped = game.action_from_event(event)
        if mapped is not None:
            state, _ = game.apply(state, *mapped)
            out.append(state)
    return out[:: max(1, len(out) // 12)]


STATES = {(n, p): states_of(n, p) for n in game_names()
          for p in (get_game(n).min_players, get_game(n).max_players)}


@pytest.mark.slow  # 300 messages per state: `make test`, not `make check`
@pytest.mark.parametrize("key", list(STATES), ids=lambda k: f"{k[0]}-{k[1]}p")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_client_message_is_applied_or_refused_cleanly(key, data):
    name, players = key
    game = get_game(name)
    state = data.draw(st.sampled_from(STATES[key]))
    seat = data.draw(st.one_of(st.none(), st.integers(-1, players)))
    action = data.draw(actions)
    before = copy.deepcopy(state)
    try:
        game.apply(state, seat, action)
    except GameError as exc:
        assert exc.message  # a sentence for the player
    assert state == before  # states are values: apply never changes its input
