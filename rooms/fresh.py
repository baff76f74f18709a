"""A room's rows as this process last committed them, so that its next move
reads nothing.

Every move locks its room and reads the room, its game and its seats in a
round trip of its own before the rules run (rooms.rows.lock_room). When the
process that serves a move also committed the room's last change, those rows
are already here: the move is computed from them, and its writes go to
PostgreSQL in one round trip behind a guard that locks the room row and fails
unless the room is still at the version kept (``rows.guarded``). The guard
takes the same row lock as ``lock_room``, first, so the order of locks and the
exactly-once rules are those of every other command: the room's row lock, the
version, and the unique (game, seq) of the move log.

A move computed here from rows that have moved on (another process committed
a change meanwhile) is refused by its guard, rolled back whole, and done again
under the lock: the kept rows save work, they never decide anything alone.
To keep those retries rare, rows are kept only for rooms this process hears
(a socket of it is in the room's group): each broadcast of a newer version,
from any process, drops them (``heard``). So a proxy that sends a room's
sockets to one process (docs/deploy.md) makes most moves one round trip; with
sockets spread over processes each move is served as before.

Only what a room's version covers is trusted: every change anyone can see
bumps it. A few writes do not (a second tab's connection count, presence
marks from pings, clocks shifted after a pause, a session's new key at
sign-in), so the kept rows are used only where those cannot change the move:
a human's action or a computer's move at a table where no seat is held for
an absent player (whose presence would decide how the computer plays), on
PostgreSQL, where the servers that share a room run. The seats' presence is
read again in the move's round trip, for the broadcast and the rows kept
after it (``guarded``).
"""

from __future__ import annotations

import operator
import threading
from collections import Counter
from dataclasses import dataclass

from django.db import connections
from django.db.models.base import ModelState

from . import codes, rows, threads
from .models import Game, Room, Seat
from .state import cached_seq

# Bounded, not an LRU: when full it is emptied and refilled by the next moves.
MAX_KEPT = 10_000


def _fields(model) -> tuple[str, ...]:
    return tuple(f.attname for f in model._meta.concrete_fields)


_ROOM_FIELDS, _GAME_FIELDS, _SEAT_FIELDS = _fields(Room), _fields(Game), _fields(Seat)
_room_values = operator.attrgetter(*_ROOM_FIELDS)
_game_values = operator.attrgetter(*_GAME_FIELDS)
_seat_values = operator.attrgetter(*_SEAT_FIELDS)
_VERSION = _ROOM_FIELDS.index("version")


@dataclass(frozen=True)
class Kept:
    """The committed field values of a room, its current game and its seats."""

    room: tuple
    game: tuple
    seats: tuple[tuple, ...]

    @property
    def version(self) -> int:
        return self.room[_VERSION]


_lock = threading.Lock()
_kept: dict[int, Kept] = {}  # room id ->
_room_by_code: dict[str, int] = {}
_room_by_game: dict[int, int] = {}
_listening: Counter[int] = Counter()  # room id -> this process's sockets in its group

# How often a move computed from kept rows had to be done again under the
# lock (its guard found the room moved on, or it needed more than the rows).
stats = Counter()


def listening(room_id: int) -> None:
    """A socket of this process joined the room's group: it hears every change."""
    with _lock:
        _listening[room_id] += 1


def not_listening(room_id: int) -> None:
    """A socket left the room's group. With none left the process no longer
    hears the room's changes, so what it kept of the room may go stale."""
    with _lock:
        _listening[room_id] -= 1
        if _listening[room_id] <= 0:
            del _listening[room_id]
            _forget(room_id)


def hears(room_id: int) -> bool:
    """Whether a socket of this process is in the room's group."""
    return room_id in _listening


def heard(room_id: int, version: int) -> None:
    """A broadcast of the room at ``version`` reached this process: kept rows
    of an older version are stale (another process changed the room)."""
    kept = _kept.get(room_id)
    if kept is not None and kept.version < version:
        with _lock:
            kept = _kept.get(room_id)
            if kept is not None and kept.version < version:
                _forget(room_id)


def forget_all() -> None:
    with _lock:
        _kept.clear()
        _room_by_code.clear()
        _room_by_game.clear()


def _forget(room_id: int) -> None:
    kept = _kept.pop(room_id, None)
    if kept is not None:
        _room_by_code.pop(kept.room[_ROOM_FIELDS.index("code")], None)
        _room_by_game.pop(kept.game[0], None)


def keep_on_commit(room: Room, game_row: Game, seats: list[Seat]) -> None:
    """Once the command commits, keep the room's rows as it wrote them, if this
    process hears the room (``listening``) and runs on PostgreSQL."""
    db = threads.connection()
    if db.vendor != "postgresql":
        return
    db.on_commit(lambda: _keep(room, game_row, seats))


def _keep(room: Room, game_row: Game, seats: list[Seat]) -> None:
    kept = Kept(_room_values(room), _game_values(game_row),
                tuple(_seat_values(seat) for seat in seats))
    with _lock:
        if room.id not in _listening:
            return
        old = _kept.get(room.id)
        if old is not None and old.version >= kept.version:
            return  # another command thread kept a later commit first
        if len(_kept) >= MAX_KEPT:
            _kept.clear()
            _room_by_code.clear()
            _room_by_game.clear()
        _kept[room.id] = kept
        _room_by_code[room.code] = room.id
        _room_by_game[game_row.id] = room.id


def room_for_action(code: str, version: int) -> Room | None:
    """The room built from kept rows for a player's action sent at ``version``,
    or None when the move must read the room under its lock: nothing kept,
    another version (the lock's answer is the one to give), or a table where
    the rows kept are not enough (module docstring)."""
    room_id = _room_by_code.get(codes.normalize(code))
    kept = None if room_id is None else _kept.get(room_id)
    if kept is None or kept.version != version:
        return None
    return _built(kept)


def room_for_deadline(game_id: int, seq: int) -> Room | None:
    """The room built from kept rows for a computer's move at ``game_id``'s
    deadline at ``seq``, or None (as ``room_for_action``): a human's timeout
    is judged under the lock, on presence the kept rows may not have."""
    room_id = _room_by_game.get(game_id)
    kept = None if room_id is None else _kept.get(room_id)
    if kept is None:
        return None
    room = _built(kept)
    if room is None:
        return None
    game_row = room.current_game
    if game_row.seq != seq or game_row.turn_seat is None:
        return None
    if room.locked_seats[game_row.turn_seat].kind != Seat.Kind.BOT:
        return None
    return room


def _built(kept: Kept) -> Room | None:
    """Model instances of the kept rows, as ``rows.lock_room`` returns them;
    None where the kept rows are not enough."""
    db = connections["default"]
    room = _instance(Room, _ROOM_FIELDS, kept.room, db)
    game_row = _instance(Game, _GAME_FIELDS, kept.game, db)
    if (room.status != Room.Status.PLAYING or room.current_game_id != game_row.id
            or game_row.status != Game.Status.IN_PROGRESS
            or cached_seq(game_row.id) != game_row.seq):
        return None
    seats = [_instance(Seat, _SEAT_FIELDS, values, db) for values in kept.seats]
    if any(seat.held for seat in seats):
        return None
    room._state.fields_cache["current_game"] = game_row
    for seat in seats:
        seat._state.fields_cache["room"] = room
    room.locked_seats = seats
    room.loaded_values = _room_values(room)
    room.kept_version = room.version
    return room


def _instance(model, names: tuple[str, ...], values: tuple, db):
    instance = model.__new__(model)
    instance.__dict__.update(zip(names, values, strict=True))
    state = instance._state = ModelState()
    state.adding, state.db = False, db.alias
    return instance


def guarded(room: Room):
    """The context in which a command computed from ``room`` (built here)
    writes: behind the guard that the room is still at the version kept, and
    followed by a read of its seats' presence. Presence is written without a
    version (pings, a second tab), so the kept rows may hold an old
    ``last_seen``: the moves made from them do not depend on it (the module
    docstring), but the broadcast shows who is connected, and the rows kept
    after this move must be as current as a locked read's. The read runs
    under the guard's lock, after the move's own writes."""
    by_id = {seat.id: seat for seat in room.locked_seats}

    def present(found: list[tuple]) -> None:
        for seat_id, count, last_seen, disconnected_at in found:
            seat = by_id.get(seat_id)
            if seat is not None:
                seat.connections, seat.last_seen = count, last_seen
                seat.disconnected_at = disconnected_at

    return rows.guarded(rows.guard_statement(room.id, room.kept_version),
                        rows.presence_statement(room.id), present)
