"""Presence: a page connects, shows it is alive, and disconnects. Only a
change anyone can see (a seat goes online or offline) bumps the version."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction

from .. import clock, codes, errors, rows
from ..models import Seat
from ..selectors import snapshot_of
from .core import Actor, Change, commit, locked, seats_held, seats_of


@transaction.atomic
def connection_opened(code: str, actor: Actor,
                      showing: int | None = None) -> tuple[bool, dict[str, Any]]:
    """A page of the session connected: every seat it plays (its own and the
    pass-and-play seats on its device) is present. Returns whether it counted
    the connection on any seat (a spectator's counts on none, and its close
    has nothing to undo: rooms.consumers), and the page's snapshot, made from
    the room as this command locked it (reading it again afterwards was three
    more queries, the larger part of a connect: docs/performance.md)."""
    room = locked(code)
    seats = seats_of(room)
    held = seats_held(seats, actor)
    was_connected = [seat.connected for seat in held]
    for seat in held:
        seat.connections += 1  # the room is locked: a plain increment is safe
        seat.last_seen = clock.now()
        seat.disconnected_at = None
        rows.save_fields(seat, ["connections", "last_seen", "disconnected_at"])
    # A second tab of a connected seat, or a spectator, changes nothing anyone
    # sees: no version.
    if not all(was_connected):
        commit(room, Change(room.id))
    return bool(held), snapshot_of(room, seats, room.current_game, actor.session_key, showing)


# Seconds between two presence writes for one connection (rooms.consumers)
# or one seat's actions (``seen``): with pings every 25 s a live page's
# last_seen is never older than about 25 s, well inside Seat.SILENT_AFTER_SECONDS.
SEEN_EVERY = 10


def seen(seat: Seat, change: Change) -> None:
    """An action is a sign of life too: renew the seat's presence in the
    command's own writes (no extra round trip), at most every SEEN_EVERY s."""
    now = clock.now()
    if seat.last_seen is None or now - seat.last_seen >= timedelta(seconds=SEEN_EVERY):
        seat.last_seen = now
        change.seen = seat


@transaction.atomic
def seats_seen(pairs: list[tuple[str, str]]) -> None:
    """Messages from seated pages, as (room code, session key): their players
    are still here. Cheap: one UPDATE for them all, no lock, no version bump;
    the consumers mark each connection at most every SEEN_EVERY seconds and
    write a process's marks together (rooms.seen)."""
    if pairs:
        rows.mark_seen(sorted({(codes.normalize(code), key) for code, key in pairs}),
                       clock.now())


def connection_closed(code: str, actor: Actor) -> None:
    connections_closed(code, [actor])


@transaction.atomic
def connections_closed(code: str, actors: list[Actor]) -> None:
    """Pages of the room closed, one per actor (an actor twice: two of its
    tabs): each seat they play counts one connection less. Several at once
    for a stopping server, which writes every socket of a room in one lock,
    one write per seat and at most one version (rooms.consumers)."""
    try:
        room = locked(code)
    except errors.NotFound:
        return
    seats = seats_of(room)
    was_connected = {seat.index: seat.connected for seat in seats}
    closed: dict[int, Seat] = {}
    now = clock.now()
    for actor in actors:
        for seat in seats_held(seats, actor):
            seat.connections = max(0, seat.connections - 1)
            seat.last_seen = now
            if seat.connections == 0:
                seat.disconnected_at = now
            closed[seat.index] = seat
    for seat in closed.values():
        rows.save_fields(seat, ["connections", "last_seen", "disconnected_at"])
    # Closing one of several tabs changes nothing anyone sees: no version.
    if any(seat.connected != was_connected[index] for index, seat in closed.items()):
        commit(room, Change(room.id))
