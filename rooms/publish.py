"""After a command commits: send every connection its own view, arm the timer.

Runs in ``transaction.on_commit`` callbacks, so nobody hears of a change that
was rolled back. One group message per change carries a payload per seat (and
one for spectators); each consumer forwards only its own seat's payload.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from contextvars import ContextVar
from datetime import datetime
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.db import transaction

from config.cache import REDIS_AWAY
from config.logfilters import REDIS_AWAY_NOTE
from games.registry import get_game

from . import threads
from .jsontext import compact
from .models import Game, Seat
from .redis_line import line_for
from .selectors import (
    devices_of,
    finished_game_ratings,
    message_for,
    owner_tag,
    room_json,
    turn_seat_of,
    you_json,
)
from .state import load_state
from .timers import get_timer_backend, wakeup

log = logging.getLogger(__name__)


def room_group(room_id: int) -> str:
    return f"room.{room_id}"


def build_update(room, change) -> dict[str, Any]:
    """One group message with every seat's own ``update`` (and the spectators')."""
    events = change.events
    seats = change.seats if change.seats is not None else list(room.seats.order_by("index"))
    game_row = change.game_row if change.game_row is not None else room.current_game
    state = change.state
    if state is None and game_row is not None:
        state = load_state(game_row)
    # Rendered to JSON text once here: consumers forward the text as it is, and
    # the channel layer carries strings more cheaply than nested objects.
    shared_room = room_json(room, seats)
    humans = [s.index for s in seats if s.kind == Seat.Kind.HUMAN]
    ratings = finished_game_ratings(game_row)
    if game_row is None or get_game(game_row.game).views_alike:
        payloads = _payloads_alike(room, seats, game_row, state, events, shared_room, humans,
                                   ratings)
    else:
        payloads = {
            str(index): compact(message_for("update", room, seats, game_row, state, index, events,
                                          shared_room, ratings))
            for index in humans
        }
        payloads["spectator"] = compact(
            message_for("update", room, seats, game_row, state, None, events, shared_room,
                        ratings)
        )
    owners = {owner_tag(s.session_key): s.index for s in seats
              if s.kind == Seat.Kind.HUMAN and not s.on_device}
    # Pass and play: the consumer of a shared device picks among its seats'
    # payloads by whose turn it is (rooms.consumers, selectors.device_seat_shown).
    return {"type": "room.update", "version": room.version, "owners": owners,
            "payloads": payloads, "devices": devices_of(seats), "turn": turn_seat_of(game_row)}


def _payloads_alike(room, seats, game_row, state, events, shared_room,
                    humans: list[int], ratings=None) -> dict[str, str]:
    """Every seat's payload for a game where all see the same (no hidden
    information: ``Game.views_alike``), or a room with no game. The spectator's
    message is rendered and encoded once; a seat's text is that one with its
    own ``you`` and ``legal`` put in, the only parts that differ. Rendering
    each seat's view and JSON anew was a fifth of a move's CPU
    (docs/performance.md). The markers are random per message, so no text a
    player chose (a nickname) can contain them."""
    message = message_for("update", room, seats, game_row, state, None, events, shared_room,
                          ratings)
    marker = secrets.token_hex(12)
    you_mark, legal_mark = f"you-{marker}", f"legal-{marker}"
    message["you"] = you_mark
    if message["game"] is not None:
        message["game"] = {**message["game"], "legal": legal_mark}
    template = compact(message)
    you_at, legal_at = compact(you_mark), compact(legal_mark)
    engine = get_game(game_row.game) if game_row is not None else None
    over = game_row is None or game_row.status != Game.Status.IN_PROGRESS

    def text_for(seat: int | None) -> str:
        legal = [] if seat is None or over else engine.legal_actions(state, seat)
        return (template.replace(you_at, compact(you_json(seats, seat)), 1)
                .replace(legal_at, compact(legal), 1))

    payloads = {str(index): text_for(index) for index in humans}
    payloads["spectator"] = text_for(None)
    return payloads


# The event loop of the async code (a consumer, the ticker) whose worker
# thread is running the command, if any; the context reaches that thread.
_caller_loop: ContextVar[asyncio.AbstractEventLoop | None] = ContextVar(
    "khelaghor_caller_loop", default=None
)
_sending: set[asyncio.Task] = set()


def from_event_loop() -> None:
    """Called by async code before it runs commands in worker threads: their
    broadcasts are then handed to this loop without waiting for them."""
    _caller_loop.set(asyncio.get_running_loop())


def room_changed(room, change, arm: tuple[int, int, datetime, bool] | None = None) -> None:
    """Broadcast ``change``, then arm the game's next deadline if ``arm`` is
    given ((game id, seq, deadline, here): ``arm_game``'s arguments). Both go
    to the caller's loop with the command's result (``threads.call_on_loop``),
    and where the broadcast and the timers use the same Redis, the publish and
    the arm go in one command (``RedisTimers.publish_and_schedule_async``)."""
    try:
        message = build_update(room, change)
    except Exception:
        if arm is not None:  # the deadline stands even if the update cannot be built
            arm_game(*arm)
        raise
    layer = get_channel_layer()
    loop = _caller_loop.get()
    if layer is None or loop is None or loop.is_closed():
        try:
            if layer is not None:
                async_to_sync(layer.group_send)(room_group(room.id), message)
        finally:
            if arm is not None:
                arm_game(*arm)
        return
    # Hand the send to the loop and return: async_to_sync would hold this
    # thread for a round trip through the loop, which cost more CPU than the
    # send (docs/performance.md). The loop starts sends in the order they are
    # handed over and the layer publishes one at a time; two threads or
    # processes can still race after their commits, as before, and a client
    # that sees a version gap asks for a snapshot (docs/protocol.md).
    arming = None if arm is None else _arming(*arm)
    threads.call_on_loop(loop, _start_send, layer, room_group(room.id), message, arming)


def _start_send(layer, group: str, message: dict[str, Any], arming=None) -> None:
    """On the loop: publish ``message``, and arm ``arming`` ((backend, key,
    seq, deadline timestamp), from ``_arming``) with it when there is one."""
    # The move is committed; clients resync from their version on the next update.
    publishing = _publishing(layer, group, message, arming)
    armed = False
    if publishing is None:
        _start(layer.group_send(group, message), "broadcast failed")
    else:
        work, armed = publishing
        _start(_published_or_heard_here(layer, group, message, work, armed), "broadcast failed")
    if arming is not None and not armed:
        _start_arm(*arming)


async def _published_or_heard_here(layer, group: str, message: dict[str, Any], publishing,
                                   armed: bool = False):
    """``publishing``; should Redis be away, the message goes at least to
    this process's sockets of the group (``deliver_here``). ``armed``: the
    publish carried the next deadline's arm too, which the database sweep
    then fires (rooms.ticker)."""
    try:
        await publishing
    except REDIS_AWAY as exc:
        heard = deliver_here(layer, group, message)
        log.warning("Redis is away (%s): a room's update went to the %d socket(s) of this "
                    "process only%s", exc, heard,
                    "; the database sweep will fire its turn timer" if armed else "",
                    extra=REDIS_AWAY_NOTE)


def send_to_room(room_id: int, message: dict[str, Any]) -> None:
    """From sync code in any thread, after a commit: ``message`` to every socket
    of the room, as a group message that is not an update (no version: a
    socket that misses it needs no resync; the consumer's handler of its type
    forwards it). Used for a finished game's ratings (accounts_optional.ratings).

    It goes out on the event loop of the async code whose work this is, when
    the context says which (``from_event_loop``), as a room's updates do: should
    Redis be away it still reaches this process's sockets (``deliver_here``).
    Elsewhere it is sent from this thread. Never raises: the message is a
    courtesy, and its sender (a rating thread, the timers' sweep) has nothing
    to undo; a failure is logged as a warning."""
    layer = get_channel_layer()
    if layer is None:
        return
    group = room_group(room_id)
    loop = _caller_loop.get()
    if loop is not None and not loop.is_closed():
        try:
            threads.call_on_loop(loop, _start_room_message, layer, group, message)
            return
        except RuntimeError:  # the loop closed meanwhile: sent from here instead
            pass
    try:
        async_to_sync(_sent_or_heard_here)(layer, group, message)
    except Exception:
        log.warning("a room's %s message could not be sent", message.get("type"), exc_info=True)


def _start_room_message(layer, group: str, message: dict[str, Any]) -> None:
    _start(_sent_or_heard_here(layer, group, message), "a room's message could not be sent")


async def _sent_or_heard_here(layer, group: str, message: dict[str, Any]) -> None:
    """``message`` to ``group`` through the layer; should Redis be away, to
    this process's sockets of the group at least. Any failure is a warning."""
    try:
        await layer.group_send(group, message)
    except REDIS_AWAY as exc:
        heard = deliver_here(layer, group, message)
        log.warning("Redis is away (%s): a room's %s message went to the %d socket(s) of this "
                    "process only", exc, message.get("type"), heard, extra=REDIS_AWAY_NOTE)
    except Exception:
        log.warning("a room's %s message could not be sent", message.get("type"), exc_info=True)


def deliver_here(layer, group: str, message: dict[str, Any]) -> int:
    """Put ``message`` straight into the queues of this process's sockets in
    ``group``, as channels_redis's pub/sub layer does with a message Redis
    brings it (``_receive_message``, channels-redis 4.3, pinned); how many.
    For a Redis restart: a room's sockets are on one server behind the
    recommended proxy (docs/deploy.md), so its table plays on live instead of
    freezing until Redis is back. Sockets elsewhere see the version skip and
    ask for a snapshot once Redis answers (docs/protocol.md)."""
    if not isinstance(layer, RedisPubSubChannelLayer):
        return 0
    loop_layer = layer._get_layer()
    members = loop_layer.groups.get(loop_layer._get_group_channel_name(group), ())
    data = layer.serialize(message)
    heard = 0
    for name in list(members):
        queue = loop_layer.channels.get(name)
        if queue is not None:
            queue.put_nowait(data)
            heard += 1
    return heard


# channels_redis's pub/sub layer publishes a group message through redis-py's
# asyncio client, one publish at a time behind a lock per Redis: a pool
# checkout, a retry wrapper and a reply parser for a one-number reply, and
# every broadcast waits for the previous one's round trip. That publish was
# 6 % of a server's samples under the mixed load (docs/performance.md, "Round
# 13"). The same message, serialised by the layer, goes out on this loop's
# pipelined connection instead (rooms.redis_line), to the channel and the
# Redis the layer itself subscribes the group's sockets on; the layer still
# receives and delivers it. A publish whose connection closes before its reply
# is sent once more: a socket may then get an update twice, which clients
# ignore by its version (docs/protocol.md).
BROADCAST_TIMEOUT_SECONDS = 5.0


def _publishing(layer, group: str, message: dict[str, Any], arming=None):
    """The publish of ``message`` to ``group`` as a coroutine on this loop's
    pipelined connection, and whether it also arms ``arming`` (where the
    timers keep their deadlines on the same Redis: one command for both); None
    where the layer is not channels_redis's pub/sub layer with hosts given by
    address (then its own group_send)."""
    if not isinstance(layer, RedisPubSubChannelLayer):
        return None
    loop_layer = layer._get_layer()
    channel = loop_layer._get_group_channel_name(group)
    address = loop_layer._get_shard(channel).host.get("address")
    if not isinstance(address, str):
        return None
    line, data = line_for(address, BROADCAST_TIMEOUT_SECONDS), layer.serialize(message)
    if arming is not None and arming[0].shares_redis(address):
        backend, key, seq, deadline_ts = arming
        return backend.publish_and_schedule_async(line, channel, data, key, seq,
                                                  deadline_ts), True
    return line.execute("PUBLISH", channel, data), False


def _start(work, failure: str) -> None:
    """On the loop: run the coroutine ``work`` without waiting for it (a
    broadcast, an arm handed over by a command thread); log ``failure`` if it
    raises. The task is kept until done, so it is not collected midway."""
    task = asyncio.ensure_future(work)
    _sending.add(task)
    task.add_done_callback(functools.partial(_finished, failure))


def _finished(failure: str, task: asyncio.Task) -> None:
    _sending.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error(failure, exc_info=task.exception())


# How long after a deadline this process fires itself (``arm_game(here=True)``)
# another process fires it, should this one be gone or stalled.
FIRED_HERE_BACKUP_SECONDS = 1.0


def arm_game(game_id: int, seq: int, deadline: datetime, here: bool = False) -> None:
    """Arm the game's next deadline in the timer backend. ``here``: a
    computer's move in a process that hears the room (rooms.fresh): this
    process fires it itself, from the rows it kept, and the backend holds it
    FIRED_HERE_BACKUP_SECONDS later for any other process, should this one
    die. Whichever fires first moves the game; the other finds the seq gone.
    Claimed from the backend instead, half of a table's computer moves were
    fired by a process that does not hold the room's rows (docs/performance.md)."""
    arming = _arming(game_id, seq, deadline, here)
    if arming is None:
        return
    loop = _caller_loop.get()
    if loop is None or loop.is_closed():
        backend, key, seq, deadline_ts = arming
        backend.schedule(key, seq, deadline_ts)
        return
    # Handed to the loop, right behind the broadcast, as the broadcast is: the
    # loop's pipelined Redis connection costs less CPU than the round trip
    # here (rooms.timers.RedisTimers.schedule_async). The game's next move
    # comes from a player who has had the broadcast, or from this deadline, so
    # it hardly arms first; a seat changing hands at that moment still could,
    # as two threads' arms could before. An arm that fails or is overtaken is
    # caught by the database sweep, which fires overdue deadlines (rooms.ticker).
    threads.call_on_loop(loop, _start_arm, *arming)


def _arming(game_id: int, seq: int, deadline: datetime, here: bool):
    """What ``arm_game`` arms on the loop: (backend, key, seq, deadline
    timestamp); None where the backend arms at once, in this thread (the
    in-process timers), which it has then done."""
    backend, key, deadline_ts = get_timer_backend(), f"g:{game_id}", deadline.timestamp()
    if not backend.arms_on_loop:
        backend.schedule(key, seq, deadline_ts)
        return None
    if here:
        wakeup.fire_here(key, seq, deadline_ts)
        deadline_ts += FIRED_HERE_BACKUP_SECONDS
    return backend, key, seq, deadline_ts


def _start_arm(backend, key: str, seq: int, deadline_ts: float) -> None:
    _start(backend.schedule_async(key, seq, deadline_ts),
           "could not arm a turn timer; the database sweep will fire it")


def arm_game_on_commit(game_id: int, seq: int, deadline: datetime) -> None:
    transaction.on_commit(lambda: arm_game(game_id, seq, deadline), robust=True)


def arm_room(room_id: int, when: datetime) -> None:
    get_timer_backend().schedule(f"r:{room_id}", 0, when.timestamp())
