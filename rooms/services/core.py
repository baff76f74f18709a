"""The public core every room command is made of (lobby, play, presence, upkeep
and rooms.moderation use it; none reaches into another's private helpers).

A command locks the room with its seats (``locked``, ``locked_seat``), changes
what it must, and leaves through ``commit``, which bumps the version, writes
the change and publishes it after the transaction commits. Seats change hands
through ``open_seat`` and ``seat_bot``; a seat that changed hands mid-turn gets
the new pace with ``rearm``; a table event goes into the move log with
``log_table_event``.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings

from games.registry import get_game

from .. import clock, codes, errors, fresh, publish, rows
from ..bot_names import AI_SUFFIX, BOT_NAMES
from ..models import Ban, Game, Room, Seat
from ..nicknames import BadNickname, clean_nickname
from ..state import cached_seq, load_state

BOT_DELAY = 1.0  # seconds: a computer plays at a human-like pace (settings.KHELAGHOR_BOT_DELAY)
AWAY_FOR_TAKEOVER = 45  # seconds disconnected after which one timeout hands the seat over
TIMEOUTS_FOR_TAKEOVER = 3
QUICK_PLAY_WAIT = 10  # seconds a public table waits for humans (settings.KHELAGHOR_QUICK_PLAY_WAIT)
LOBBY_IDLE = timedelta(hours=2)
FINISHED_IDLE = timedelta(hours=2)
PLAYING_IDLE = timedelta(hours=24)


# A private table's choices that are not the engine's (kept in Room.options,
# never in the game's record): "rated" counts its games for ratings.
TABLE_CHOICES = ("rated",)




@dataclass(frozen=True)
class Actor:
    """Who sends a command: a browser session (and the account, if signed in)."""

    session_key: str
    name: str = ""
    user_id: int | None = None


@dataclass
class Change:
    """What one command did, handed to ``publish`` after commit. Commands that
    already hold the seats, the game row and its state pass them along, so the
    broadcast costs no further queries."""

    room_id: int
    events: list[dict[str, Any]] = field(default_factory=list)
    seats: list[Seat] | None = None
    game_row: Game | None = None
    state: Any = None
    # A refusal that must not undo the rest (an action that also reclaimed a
    # held seat: the seat is back, the action was not legal). Callers report it.
    refusal: errors.RoomError | None = None
    # Moves applied ((seq, event)) and game fields changed, written by commit
    # together with the room in one round trip.
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    game_fields: set[str] = field(default_factory=set)
    # The next deadline to arm (game id, seq, when), after the broadcast.
    deadline: tuple[int, int, Any] | None = None
    # A seat whose player just showed they are here (``seen``): its last_seen
    # is written with the rest.
    seen: Seat | None = None
    # Held seats a computer played for, by index: their ``held_moves`` is
    # written with the rest, once a seat however many turns it played.
    counted: dict[int, Seat] = field(default_factory=dict)


def check_not_banned(actor: Actor) -> None:
    """Raise ``errors.Banned`` when the actor's session or account is banned."""
    if Ban.is_banned(session_key=actor.session_key, user_id=actor.user_id):
        raise errors.Banned("You cannot create or join rooms: a moderator has banned you")


def locked(code_or_id: str | int) -> Room:
    if isinstance(code_or_id, int):
        return locked_where(id=code_or_id)
    return locked_where(code=codes.normalize(code_or_id), open_only=True)


def locked_where(*, open_only: bool = False, **lookup: Any) -> Room:
    """The room, row-locked, with its current game and its seats read after
    the lock (``rooms.rows``); the game and seats are guarded by the room's lock.
    What it read is kept, so ``commit`` can tell which fields the command changed."""
    (lookup_key,) = lookup.items()
    game_id = _LAST_GAME.get(lookup_key)
    seq = None if game_id is None else cached_seq(game_id)
    room = rows.lock_room(open_only=open_only,
                          log_since=None if seq is None else (game_id, seq), **lookup)
    if room is None:
        raise errors.NotFound("There is no open room with that code")
    if room.current_game_id is not None:
        if len(_LAST_GAME) >= _LAST_GAME_SIZE:
            _LAST_GAME.clear()  # a bound, not an LRU: refilled by the next lock of each room
        _LAST_GAME[lookup_key] = room.current_game_id
    room.loaded_values = _values(room)
    return room


# The current game last seen when a room was locked by a lookup (("code",
# "ABCD") -> game id), so the next lock can read the moves logged since this
# process's cached state in the same round trip (rooms.rows.lock_room).
_LAST_GAME: dict[tuple[str, Any], int] = {}
_LAST_GAME_SIZE = 10_000


_ROOM_ATTNAMES = tuple(f.attname for f in Room._meta.concrete_fields)
# The room's field values, in ``_ROOM_ATTNAMES`` order, as a tuple.
_values = operator.attrgetter(*_ROOM_ATTNAMES)


def locked_seat(code: str, actor: Actor, refusal: str) -> tuple[Room, list[Seat], Seat]:
    """The locked room, its seats and the actor's own; NotSeated otherwise."""
    room = locked(code)
    seats = seats_of(room)
    seat = seat_of(seats, actor)
    if seat is None:
        raise errors.NotSeated(refusal)
    return room, seats, seat


def seats_of(room: Room) -> list[Seat]:
    """The room's seats: those read with its lock, the same objects for the
    whole command, or fresh from the database for a room not locked here."""
    locked = getattr(room, "locked_seats", None)
    if locked is not None:
        return locked
    return list(room.seats.order_by("index"))


def seat_of(seats: list[Seat], actor: Actor) -> Seat | None:
    """The session's own seat: never a seat played on its device for someone else."""
    for seat in seats:
        if (seat.kind == Seat.Kind.HUMAN and seat.session_key == actor.session_key
                and not seat.on_device):
            return seat
    return None


def seats_held(seats: list[Seat], actor: Actor) -> list[Seat]:
    """Every seat the session plays: its own and those of the players who
    share its device (pass and play), in seat order."""
    return [s for s in seats if s.kind == Seat.Kind.HUMAN and s.session_key == actor.session_key]


def held_seat(seats: list[Seat], actor: Actor, wanted: Any) -> Seat:
    """The seat ``wanted`` when the session plays it (its own or one on its
    device); its own seat when ``wanted`` is None (clients that send no seat)."""
    if wanted is None:
        seat = seat_of(seats, actor)
        if seat is None:
            raise errors.NotSeated("Spectators cannot play")
        return seat
    held = {s.index: s for s in seats_held(seats, actor)}
    if not isinstance(wanted, int) or isinstance(wanted, bool) or wanted not in held:
        raise errors.NotSeated("That seat is not played on this device")
    return held[wanted]


def require_open(room: Room) -> None:
    if room.status == Room.Status.CLOSED:
        raise errors.RoomClosed(room.closed_reason or "This room has been closed")


def require_host(seats: list[Seat], actor: Actor) -> Seat:
    seat = seat_of(seats, actor)
    if seat is None or seat.index != 0:
        raise errors.NotHost("Only the host can do that")
    return seat


def name_for(actor: Actor) -> str:
    try:
        return clean_nickname(actor.name)
    except BadNickname:
        return ""


# The room fields every commit writes; a command that changes any other names it.
COMMITTED_ROOM_FIELDS = ("version", "last_activity", "status", "autostart_at", "closed_reason")


class UncommittedChange(RuntimeError):
    """A command changed a room field it did not give ``commit``: a bug, which
    must not pass as a change that silently never reaches the database."""


@functools.lru_cache(maxsize=64)
def _attnames(fields: tuple[str, ...]) -> frozenset[str]:
    """The columns of the room fields ``fields`` (a command names a few sets)."""
    return frozenset(Room._meta.get_field(name).attname for name in fields)


def commit(room: Room, change: Change, room_fields: tuple[str, ...] = (), *,
           ends_command: bool = False) -> Change:
    """Bump the version, write the change and publish after commit (the one exit
    of every command). The room's fields are written here and only here:
    ``COMMITTED_ROOM_FIELDS`` always, and the ``room_fields`` the command
    changed besides; a changed field missing from both raises UncommittedChange.
    The room row is locked, so a plain increment is safe.

    ``ends_command``: the caller returns what this returns and does nothing
    more in its transaction, so the writes may carry the ``COMMIT`` in their
    round trip (``rows.run``). The moves' path passes it."""
    fields = (*COMMITTED_ROOM_FIELDS, *room_fields)
    loaded = getattr(room, "loaded_values", None)
    if loaded is None:
        raise UncommittedChange("commit needs the room from locked()")
    now = _values(room)
    forgotten = [] if now == loaded else sorted(
        {name for name, before, after in zip(_ROOM_ATTNAMES, loaded, now, strict=True)
         if before != after} - _attnames(fields)
    )
    if forgotten:
        raise UncommittedChange(f"room fields changed but not committed: {', '.join(forgotten)}")
    room.version += 1
    room.last_activity = clock.now()
    writes = []
    if change.moves:
        writes.append(rows.moves_statement(change.game_row, change.moves))
    if change.game_fields:
        writes.append(rows.update_statement(change.game_row, sorted(change.game_fields)))
    if change.seen is not None:
        writes.append(rows.update_statement(change.seen, ["last_seen"]))
    writes.extend(rows.update_statement(seat, ["held_moves"]) for seat in change.counted.values())
    writes.append(rows.update_statement(room, list(fields)))
    rows.run(writes, end_transaction=ends_command)
    room.loaded_values = _values(room)
    if change.seats is None:
        # The seats read under the lock, as the command changed them: a
        # disconnect or a timeout that names none had the broadcast read them
        # again with the ORM, the largest query in a server's profile
        # (docs/performance.md).
        change.seats = seats_of(room)
    # robust: the move is committed; a Redis blip must not turn it into an error
    # (clients resync on the next version, the database sweep re-arms timers).
    arm = None
    if change.deadline is not None:  # armed after the broadcast is on its way
        # A computer's move is fired by the process that keeps the room's rows.
        here = change.game_row.deadline_kind == "bot" and fresh.hears(room.id)
        arm = (*change.deadline, here)
    rows.on_commit(lambda: publish.room_changed(room, change, arm), robust=True)
    return change


def engine_options(room: Room) -> dict[str, Any]:
    return {k: v for k, v in room.options.items() if k not in TABLE_CHOICES}


def open_seat(seat: Seat) -> None:
    seat.kind = Seat.Kind.OPEN
    seat.session_key = ""
    seat.user_id = None
    seat.name = ""
    seat.bot_kind = ""
    seat.held = False
    seat.on_device = False
    seat.connections = 0
    seat.client_seed = ""
    seat.consecutive_timeouts = 0
    rows.save_fields(seat, ["kind", "session_key", "user", "name", "bot_kind", "held",
                            "on_device", "connections", "client_seed",
                            "consecutive_timeouts"])


def seat_bot(seat: Seat, kind: str) -> None:
    seat.kind = Seat.Kind.BOT
    seat.bot_kind = kind
    # Stored in English; pages show it in their language (rooms.bot_names).
    seat.name = f"{BOT_NAMES[seat.index % len(BOT_NAMES)]}{AI_SUFFIX}"
    seat.session_key = ""
    rows.save_fields(seat, ["kind", "bot_kind", "name", "session_key"])


def log_table_event(game_row: Game, event: dict[str, Any]) -> None:
    insert = rows.moves_statement(game_row, [(game_row.seq, event)])
    game_row.seq += 1
    rows.run([insert, rows.update_statement(game_row, ["seq"])])


def bot_delay() -> float:
    return float(getattr(settings, "KHELAGHOR_BOT_DELAY", BOT_DELAY))


def set_deadline(room: Room, game_row: Game, seats: list[Seat], turn) -> tuple[int, int, Any]:
    """Set the pending decision's deadline on ``game_row``; return what to arm."""
    seat = seats[turn.seat]
    if seat.kind == Seat.Kind.BOT or seat.held:
        seconds, by = bot_delay(), "bot"
    else:
        seconds, by = room.turn_seconds, "human"
    game_row.turn_seat = turn.seat
    game_row.deadline = clock.now() + timedelta(seconds=seconds)
    game_row.deadline_kind = by
    return game_row.id, game_row.seq, game_row.deadline


def rearm(room: Room, game_row: Game, seats: list[Seat]) -> None:
    """A seat changed hands mid-turn: the pending decision gets the new pace."""
    if game_row is None or game_row.status != Game.Status.IN_PROGRESS:
        return
    turn = get_game(game_row.game).turn(load_state(game_row))
    if turn is not None and turn.seat is not None:
        deadline = set_deadline(room, game_row, seats, turn)
        rows.save_fields(game_row, ["turn_seat", "deadline", "deadline_kind"])
        publish.arm_game_on_commit(*deadline)
