"""Upkeep: idle rooms close so their codes can be used again; closing a room
aborts its game."""

from __future__ import annotations

from django.db import transaction

from .. import clock, rows
from ..models import Game, Room
from .core import FINISHED_IDLE, LOBBY_IDLE, PLAYING_IDLE, Change, commit, locked, log_table_event


def rooms_expire() -> int:
    """Close idle rooms so their codes can be used again (see ``rooms.codes``)."""
    now = clock.now()
    closed = 0
    for status, idle in (
        (Room.Status.LOBBY, LOBBY_IDLE),
        (Room.Status.FINISHED, FINISHED_IDLE),
        (Room.Status.PLAYING, PLAYING_IDLE),
    ):
        for room in Room.objects.filter(status=status, last_activity__lt=now - idle):
            room_close(room.id, reason="Closed after sitting idle")
            closed += 1
    return closed


@transaction.atomic
def room_close(room_id: int, *, reason: str) -> Change | None:
    room = locked(room_id)
    if room.status == Room.Status.CLOSED:
        return None
    game_row = room.current_game
    change = Change(room.id, [{"type": "closed", "reason": reason}])
    if game_row is not None and game_row.status == Game.Status.IN_PROGRESS:
        game_row.status = Game.Status.ABORTED
        game_row.finished_at = clock.now()
        game_row.deadline = None
        rows.save_fields(game_row, ["status", "finished_at", "deadline"])
        log_table_event(game_row, {"type": "aborted", "reason": reason})
    room.status = Room.Status.CLOSED
    room.closed_reason = reason
    room.autostart_at = None
    return commit(room, change)
