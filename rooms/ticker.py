"""The loop that turns due deadlines into moves, in every server process.

Started by the first WebSocket connection a process accepts. On start it re-arms
every game in play from the database (a restart loses no timer); then it claims
due timers from the backend, and every few seconds sweeps the database for
overdue deadlines, which covers a Redis restart or lost data. Several processes
may run it at once: ``services.deadline_fire`` acts only once per ``seq``.
"""

from __future__ import annotations

import asyncio
import logging
import time

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from . import clock, publish
from .timers import get_timer_backend

log = logging.getLogger(__name__)

POLL_SECONDS = 0.05
SWEEP_SECONDS = 5.0
SWEEP_GRACE_SECONDS = 1.0
EXPIRE_SECONDS = 600.0

_task: asyncio.Task | None = None


def ensure_started() -> None:
    """Start the loop in this process once (again if its event loop changed)."""
    global _task
    loop = asyncio.get_running_loop()
    if _task is None or _task.done() or _task.get_loop() is not loop:
        _task = loop.create_task(run())


def fire(key: str, payload: int) -> None:
    from . import services

    kind, _, ident = key.partition(":")
    if kind == "g":
        services.deadline_fire(int(ident), payload)
    elif kind == "r":
        services.room_autostart(int(ident))


def rearm_all() -> int:
    """Schedule every pending deadline found in the database."""
    from .models import Game, Room
    from .publish import arm_game, arm_room

    count = 0
    for game_id, seq, deadline in Game.objects.filter(
        status=Game.Status.IN_PROGRESS, deadline__isnull=False
    ).values_list("id", "seq", "deadline"):
        arm_game(game_id, seq, deadline)
        count += 1
    for room_id, when in Room.objects.filter(
        status=Room.Status.LOBBY, autostart_at__isnull=False
    ).values_list("id", "autostart_at"):
        arm_room(room_id, when)
        count += 1
    return count


def sweep() -> int:
    """Fire deadlines the timer backend should have fired but did not."""
    from datetime import timedelta

    from .models import Game, Room

    close_old_connections()
    late = clock.now() - timedelta(seconds=SWEEP_GRACE_SECONDS)
    fired = 0
    for game_id, seq in Game.objects.filter(
        status=Game.Status.IN_PROGRESS, deadline__lt=late
    ).values_list("id", "seq"):
        fire(f"g:{game_id}", seq)
        fired += 1
    for room_id in Room.objects.filter(
        status=Room.Status.LOBBY, autostart_at__lt=late
    ).values_list("id", flat=True):
        fire(f"r:{room_id}", 0)
        fired += 1
    return fired


def _fire_claimed(claims) -> None:
    backend = get_timer_backend()
    for key, payload in claims:
        try:
            fire(key, payload)
        except Exception:  # one bad game must not stop every other table's clock
            log.exception("timer %s (%s) failed", key, payload)
        finally:
            backend.ack(key)


async def run() -> None:
    publish.from_event_loop()  # timeouts' broadcasts go straight to this loop
    backend = get_timer_backend()
    await sync_to_async(rearm_all)()
    last_sweep = last_expire = time.monotonic()
    while True:
        try:
            claims = await sync_to_async(backend.claim_due, thread_sensitive=False)(
                clock.timestamp()
            )
            if claims:
                await sync_to_async(_fire_claimed)(claims)
            now = time.monotonic()
            if now - last_sweep >= SWEEP_SECONDS:
                last_sweep = now
                await sync_to_async(sweep)()
            if now - last_expire >= EXPIRE_SECONDS:
                last_expire = now
                from .services import rooms_expire

                await sync_to_async(rooms_expire)()
        except asyncio.CancelledError:
            raise
        except Exception:  # Redis or the database blinked: try again shortly
            log.exception("ticker iteration failed")
            await asyncio.sleep(1.0)
        await asyncio.sleep(POLL_SECONDS)
