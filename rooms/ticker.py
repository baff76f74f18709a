"""The loop that turns due deadlines into moves, in every server process.

Started when the process starts (``config.asgi``; the first request or socket
starts it too, should a server give no start-up hook). Two halves that never
wait for each other, because the database is the truth and Redis only a fast
path to it:

- the *claims*: every POLL_SECONDS, due timers from the backend (Redis), fired
  at once;
- the *sweep*: overdue deadlines read straight from the database. Every
  SWEEP_SECONDS (with a grace, so it rarely races a claim) it catches what the
  backend lost; while the backend fails or stalls it runs every
  OUTAGE_SWEEP_SECONDS, so the clocks keep turning through a Redis outage:
  at once for the rooms this process hears, a little later for the others.

Every EXPIRE_SECONDS the sweep also closes idle rooms and rates the games whose
rating was lost with a dead process (``ratings.rate_overdue``).

Whenever the backend answers after failing (and once at start), every pending
deadline is re-armed from the database: a restarted Redis has forgotten them.
Several processes may run all of this at once: ``services.deadline_fire``
acts only once per ``seq``, under the room's lock.

Every BEAT_SECONDS, and before anything else when the loop starts, it renews
the site's clock beat (``services.clocks_beat``): if no process did for longer
than ``KHELAGHOR_CLOCKS_PAUSE_AFTER``, the turn clocks pause for that gap, so a
deadline that fell due while every server was down does not fire on restart.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

from accounts_optional import ratings

from . import clock, fresh, publish, services, threads
from .models import Game, Room
from .timers import get_timer_backend, wakeup

log = logging.getLogger(__name__)

POLL_SECONDS = 0.05  # the shortest sleep between two claims
# The longest: a deadline armed by a process that died before waking for it is
# claimed at most this late by the others (the sweep catches it later still).
MAX_SLEEP_SECONDS = 0.5
SWEEP_SECONDS = 5.0
SWEEP_GRACE_SECONDS = 1.0
OUTAGE_SWEEP_SECONDS = 0.5
# A claim that has not come back for this long counts as a failing backend
# (a Redis that hangs rather than refuses), so the sweep takes over. Only the
# call to the backend counts: firing what was claimed may be slow under load.
STALLED_AFTER_SECONDS = 1.0
EXPIRE_SECONDS = 600.0
BEAT_SECONDS = 1.0

# How long a new socket waits for this process's first beat (clocks_ready).
FIRST_BEAT_WAIT_SECONDS = 5.0

_task: asyncio.Task | None = None
_first_beat: asyncio.Event | None = None


def ensure_started() -> None:
    """Start the loop in this process once (again if its event loop changed)."""
    global _task, _first_beat
    loop = asyncio.get_running_loop()
    if _task is None or _task.done() or _task.get_loop() is not loop:
        _first_beat = asyncio.Event()
        _task = loop.create_task(run())


async def clocks_ready() -> None:
    """Until this process's first beat is made (at most FIRST_BEAT_WAIT_SECONDS;
    at once where no ticker runs in this loop): a socket opened in the moment
    after a full restart must not read, or set, a deadline that the pause is
    about to move."""
    task, event = _task, _first_beat
    if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
        return
    if event is None or event.is_set():
        return
    try:
        await asyncio.wait_for(event.wait(), FIRST_BEAT_WAIT_SECONDS)
    except TimeoutError:  # the database is away: the socket's own calls will say so
        pass


def fire(key: str, payload: int) -> None:
    kind, _, ident = key.partition(":")
    if kind == "g":
        services.deadline_fire(int(ident), payload)
    elif kind == "r":
        services.room_autostart(int(ident))


def rearm_all() -> int:
    """Schedule every pending deadline found in the database."""
    count = 0
    for game_id, seq, deadline in Game.objects.filter(
        status=Game.Status.IN_PROGRESS, deadline__isnull=False
    ).values_list("id", "seq", "deadline"):
        publish.arm_game(game_id, seq, deadline)
        count += 1
    for room_id, when in Room.objects.filter(
        status=Room.Status.LOBBY, autostart_at__isnull=False
    ).values_list("id", "autostart_at"):
        publish.arm_room(room_id, when)
        count += 1
    return count


def sweep(grace_seconds: float = SWEEP_GRACE_SECONDS,
          elsewhere_grace_seconds: float | None = None) -> int:
    """Fire every deadline more than ``grace_seconds`` overdue in the database;
    given ``elsewhere_grace_seconds`` (Redis away), a room no socket of this
    process hears only once it is that much overdue.

    While Redis is away a room's update reaches only the sockets of the process
    that made it (publish.deliver_here), so the process that hears a room
    should make its moves; the grace is for a room no process hears, or whose
    process is gone. Without it the first process to sweep took every room,
    and a table whose sockets were all on another server went silent: its
    players missed their turns until Redis came back (an operator's drill)."""
    now = clock.now()
    late = now - timedelta(seconds=grace_seconds)
    late_elsewhere = (late if elsewhere_grace_seconds is None
                      else now - timedelta(seconds=elsewhere_grace_seconds))

    def ours(room_id: int, when) -> bool:
        return when < late_elsewhere or fresh.hears(room_id)

    fired = 0
    for game_id, seq, room_id, deadline in Game.objects.filter(
        status=Game.Status.IN_PROGRESS, deadline__lt=late
    ).values_list("id", "seq", "room_id", "deadline"):
        if ours(room_id, deadline):
            _fire_logged(f"g:{game_id}", seq)
            threads.hand_over_held()  # each table's update as it is made
            fired += 1
    for room_id, when in Room.objects.filter(
        status=Room.Status.LOBBY, autostart_at__lt=late
    ).values_list("id", "autostart_at"):
        if ours(room_id, when):
            _fire_logged(f"r:{room_id}", 0)
            threads.hand_over_held()
            fired += 1
    return fired


def _fire_logged(key: str, payload: int) -> None:
    db = connections[DEFAULT_DB_ALIAS]
    try:
        threads.once_more_if_connection_lost(db, lambda: fire(key, payload))
    except Exception:  # one bad game must not stop every other table's clock
        log.exception("timer %s (%s) failed", key, payload)


def _fire_claimed(claims, here=()) -> None:
    """Fire what the claim returned, in a command thread on its kept
    connection: a computer's move is most of what the timers fire, and
    Channels' wrapper checked a connection out of the pool, and closed it,
    for every batch (docs/performance.md, "Round 9"). A fire that met the kept
    connection dead (PostgreSQL restarted) runs once more on a fresh one.
    The batch is acked in one round trip at its end: should the process die
    before, its claims are handed out again after their lease, and a fired
    deadline's seq has moved on, so firing it again does nothing.

    ``here``: the deadlines this process fires itself (rooms.publish.arm_game),
    not claimed, so not acked; the backend holds each for a little later."""
    try:
        for number, (key, payload) in enumerate([*claims, *here]):
            if number:  # the previous table's update leaves now, not with the batch
                threads.hand_over_held()
            _fire_logged(key, payload)
    finally:
        if claims:
            threads.hand_over_held()  # before the ack's round trip
            get_timer_backend().ack(*(key for key, _ in claims))


class Health:
    """What the claims know about the timer backend, read by the sweep, and
    whether the clocks' last beat was made, read by both."""

    def __init__(self) -> None:
        self.failing = True  # until the first claim and re-arm succeed
        self.claiming_since: float | None = None  # a call to the backend in flight
        # Set while the last beat was made. When the database comes back after
        # an outage the first beat may pause every clock for the gap; a
        # deadline fired before it set its successor's deadline, which the
        # pause then moved on too (a player got 42.6 s instead of 15 in an
        # operator's drill). So nothing fires between a failed beat and the
        # next one that is made.
        self.beating = asyncio.Event()
        self.beating.set()  # run() makes the first beat before the loops start

    def degraded(self) -> bool:
        since = self.claiming_since
        stalled = since is not None and time.monotonic() - since > STALLED_AFTER_SECONDS
        return self.failing or stalled


async def run() -> None:
    publish.from_event_loop()  # timeouts' broadcasts go straight to this loop
    # The first beat pauses the clocks if every process was down, before any
    # deadline can fire: until it is made (the database away), nothing fires.
    while not await _beat():
        await asyncio.sleep(OUTAGE_SWEEP_SECONDS)
    if _first_beat is not None:
        _first_beat.set()
    health = Health()
    await asyncio.gather(claim_loop(health), sweep_loop(health))


async def _beat() -> bool:
    try:
        paused = await threads.command(services.clocks_beat)()  # its kept connection
    except asyncio.CancelledError:
        raise
    except Exception:  # the database is away: the next beat measures the gap
        log.exception("the turn clocks' beat failed")
        return False
    if paused:
        log.warning("no server ran the turn clocks for %.1f s: they paused for as long", paused)
    return True


async def claim_loop(health: Health) -> None:
    backend = get_timer_backend()
    wakeup.loop, wakeup.event = asyncio.get_running_loop(), asyncio.Event()
    while True:
        await health.beating.wait()
        next_at = None
        try:
            health.claiming_since = time.monotonic()
            wakeup.at, wakeup.earliest_armed = float("-inf"), float("inf")
            try:
                claims, next_at = await backend.claim_due_and_next_async(clock.timestamp())
            finally:
                health.claiming_since = None
            if health.failing:
                armed = await database_sync_to_async(rearm_all)()
                log.info("turn timers answer; %d deadlines re-armed from the database", armed)
                health.failing = False
            here = wakeup.due_here(clock.timestamp())
            if claims or here:
                await threads.command(_fire_claimed)(claims, here)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis is down: the sweep keeps the clocks going
            if not health.failing:
                log.error("turn timers failed (%s); the database sweep takes over", exc)
            health.failing = True
            await asyncio.sleep(OUTAGE_SWEEP_SECONDS)
            continue
        next_here = wakeup.next_here()
        if next_here is not None:
            next_at = next_here if next_at is None else min(next_at, next_here)
        await _sleep_until(next_at)


async def _sleep_until(next_at: float | None) -> None:
    """Sleep until the backend's next deadline (at least POLL_SECONDS, at most
    MAX_SLEEP_SECONDS), or until a deadline armed in this process wakes us."""
    now = clock.timestamp()
    wake_at = now + MAX_SLEEP_SECONDS
    if next_at is not None:
        wake_at = min(wake_at, next_at)
    # A deadline armed while the claim ran is in neither next_at nor a signal.
    wake_at = max(min(wake_at, wakeup.earliest_armed), now + POLL_SECONDS)
    wakeup.event.clear()
    wakeup.at = wake_at
    try:
        await asyncio.wait_for(wakeup.event.wait(), wake_at - now)
    except TimeoutError:
        pass


async def sweep_loop(health: Health) -> None:
    last_sweep = last_expire = last_beat = time.monotonic()
    while True:
        now = time.monotonic()
        if now - last_beat >= BEAT_SECONDS:
            if await _beat():
                last_beat = now
                health.beating.set()
            else:
                health.beating.clear()
        degraded = health.degraded()
        try:
            if not health.beating.is_set():
                pass  # the database is away, or back before the beat that may pause
            elif degraded or now - last_sweep >= SWEEP_SECONDS:
                last_sweep = now
                if degraded:
                    elsewhere = settings.KHELAGHOR_OUTAGE_ELSEWHERE_GRACE
                    await database_sync_to_async(sweep)(0.0, elsewhere)
                else:
                    await database_sync_to_async(sweep)(SWEEP_GRACE_SECONDS)
            if now - last_expire >= EXPIRE_SECONDS:
                last_expire = now
                await database_sync_to_async(services.rooms_expire)()
                await database_sync_to_async(ratings.rate_overdue)()
        except asyncio.CancelledError:
            raise
        except Exception:  # the database blinked: try again on the next turn
            log.exception("database sweep failed")
        await asyncio.sleep(OUTAGE_SWEEP_SECONDS)
