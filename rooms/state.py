"""The engine state of a game, rebuilt from its move log and cached per process.

The log is the truth: a cached state is used only at the ``seq`` it was built
for, or moved on by the events logged since (another process served them).
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Any

from games.record import fold
from games.registry import get_game

from . import rows
from .models import Game

_STATE_CACHE: OrderedDict[int, tuple[int, Any]] = OrderedDict()


_STATE_CACHE_SIZE = 2000


_cache_lock = Lock()


def load_state(game_row: Game) -> Any:
    """The engine state of ``game_row``, rebuilt from its move log. A cached
    copy built at an earlier ``seq`` is moved on by the events logged since
    (another process served the moves in between); the log is the truth."""
    with _cache_lock:
        cached = _STATE_CACHE.get(game_row.id)
    if cached and cached[0] == game_row.seq:
        return cached[1]
    engine = get_game(game_row.game)
    if cached and cached[0] < game_row.seq:
        since, state = cached
    else:
        since, state = 0, engine.initial_state(len(game_row.seats), game_row.options)
    # Read with the lock (rooms.rows.lock_room); a command that has logged
    # events since then reads them from the log.
    tail = getattr(game_row, "log_tail", None)
    if tail is not None and tail[0] == since and len(tail[1]) >= game_row.seq - since:
        events = tail[1][: game_row.seq - since]
    else:
        events = rows.events_between(game_row.id, since, game_row.seq)
    if len(events) != game_row.seq - since:
        raise RuntimeError(f"game {game_row.id}: move log has a gap before seq {game_row.seq}")
    state = fold(engine, events, state)
    remember(game_row, state)
    return state


def remember(game_row: Game, state: Any) -> None:
    """Cache ``state`` as the game's state at its current ``seq`` once the
    transaction commits: a rolled-back move must not leave its state behind
    for a ``seq`` that other moves may reach later."""
    game_id, seq = game_row.id, game_row.seq

    def remember() -> None:
        with _cache_lock:
            _STATE_CACHE[game_id] = (seq, state)
            _STATE_CACHE.move_to_end(game_id)
            while len(_STATE_CACHE) > _STATE_CACHE_SIZE:
                _STATE_CACHE.popitem(last=False)

    rows.on_commit(remember)


def cached_seq(game_id: int) -> int | None:
    """The seq at which this process holds ``game_id``'s state, if it does."""
    cached = _STATE_CACHE.get(game_id)
    return None if cached is None else cached[0]


def forget_cached_states() -> None:
    with _cache_lock:
        _STATE_CACHE.clear()
