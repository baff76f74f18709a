"""Upkeep: idle rooms close so their codes can be used again; closing a room
aborts its game; the turn clocks pause while no server ran them."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import DateTimeField, F, Value
from django.db.models.functions import Greatest

from .. import clock, rows
from ..models import Game, Room, Seat, SiteClock
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


# A longer gap is not paused: its players have long gone (and a beat left from
# before the pause was turned on must not pass for an outage).
PAUSE_AT_MOST = timedelta(hours=2)


def clocks_beat() -> float:
    """Renew the site's clock beat (``SiteClock``); called about every second by
    every process's ticker, first thing when it starts. If no process beat for
    longer than ``KHELAGHOR_CLOCKS_PAUSE_AFTER`` seconds, every process was down
    or the database away: the turn clocks pause for that gap. Each pending
    deadline, quick-play countdown, seat's last sign of life and room's last
    activity moves on by it, in the same transaction as the beat, so the players
    who come back find their turn as they left it rather than played by a
    computer. Returns the seconds paused (0.0 when none).

    Timers armed in Redis for the old times fire early and are re-armed by
    ``deadline_fire`` and ``room_autostart``, which read the database. With the
    pause turned off (0) the beat touches nothing."""
    pause_after = settings.KHELAGHOR_CLOCKS_PAUSE_AFTER
    if not pause_after:
        return 0.0
    now = clock.now()
    # The usual beat, one statement: the last beat is recent, so nothing
    # pauses; it moves to now unless this process's clock lags behind it.
    if SiteClock.objects.filter(pk=1, beat__gte=now - timedelta(seconds=pause_after)).update(
            beat=Greatest(F("beat"), Value(now, output_field=DateTimeField()))):
        return 0.0
    try:
        with transaction.atomic():
            row = SiteClock.objects.select_for_update().filter(pk=1).first()
            if row is None:  # the first beat ever: nothing to pause
                SiteClock.objects.create(pk=1, beat=now)
                return 0.0
            gap = (now - row.beat).total_seconds()
            paused = gap if pause_after < gap <= PAUSE_AT_MOST.total_seconds() else 0.0
            if paused:
                _pause_clocks(timedelta(seconds=paused))
            if gap > 0:  # a process whose clock lags must not move the beat back
                row.beat = now
                rows.save_fields(row, ["beat"])
            return paused
    except IntegrityError:  # another process made the first beat at the same time
        return 0.0


def _pause_clocks(gap: timedelta) -> None:
    Game.objects.filter(status=Game.Status.IN_PROGRESS, deadline__isnull=False).update(
        deadline=F("deadline") + gap)
    open_rooms = Room.objects.exclude(status=Room.Status.CLOSED)
    open_rooms.filter(autostart_at__isnull=False).update(autostart_at=F("autostart_at") + gap)
    open_rooms.update(last_activity=F("last_activity") + gap)
    seats = Seat.objects.filter(room__in=open_rooms)
    seats.filter(last_seen__isnull=False).update(last_seen=F("last_seen") + gap)
    seats.filter(disconnected_at__isnull=False).update(
        disconnected_at=F("disconnected_at") + gap)
