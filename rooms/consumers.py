"""The room WebSocket (docs/protocol.md): parse, call a service, reply.

The consumer keeps no game state: everything lives in the database and arrives
through the room's group as one payload per seat, of which this connection
forwards only its own. Bad input gets a typed error and changes nothing; only
abuse (oversize frames, flooding) closes the connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from types import SimpleNamespace
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib import auth
from django.db import InterfaceError, OperationalError
from django.utils import translation

from config.cache import REDIS_AWAY
from config.clients import scope_address, scope_language, socket_origin_matches
from config.logfilters import DATABASE_AWAY_NOTE, REDIS_AWAY_NOTE
from games.registry import declaration

from . import clock, codes, errors, fresh, guessing, publish, seen, services, ticker
from .jsontext import compact
from .nicknames import BadNickname, clean_nickname, keep_on_account
from .publish import room_group
from .selectors import device_json, device_seat_shown, owner_tag
from .threads import command, database_sync_to_async
from .timers import get_timer_backend

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 4096
RATE_WINDOW = 2.0
RATE_LIMIT = 20  # messages per window before they are refused
FLOOD_LIMIT = 60  # messages per window before the connection is closed
REACTIONS = frozenset(
    ["thumbs_up", "laugh", "wow", "clap", "well_played", "hurry_up", "good_luck", "oops"]
)
GROUP_REFRESH_SECONDS = 3600
CLOSE_NO_ROOM = 4004
CLOSE_TOO_LARGE = 4009
CLOSE_FLOOD = 4029

# What a server raises for a frame sent to a socket that has just gone: daphne
# its Disconnected (autobahn's, between the client's close frame and the end of
# its connection: every closed tab has that moment); an ASGI server after the
# 2.4 spec, an OSError of its own.
SOCKET_GONE = (Disconnected, OSError)
# What a command raises while PostgreSQL cannot be reached (a restart, a
# failover) once its one retry on a fresh connection has failed too
# (rooms.threads); a lock timeout or a deadlock is one too. Each rolled back
# whole: nothing was done.
DATABASE_AWAY = (OperationalError, InterfaceError)
# Try again later (as HTTP's 503; RFC 6455's own 1013 is one autobahn will not
# send): the page reconnects with its backoff, as after any close but 4004.
CLOSE_TRY_AGAIN = 4503


def _database_away() -> errors.Unavailable:
    return errors.Unavailable(
        "The server cannot reach its database just now; please try again in a moment")


# A closed socket's seat that could not be written offline (the database was
# away) is tried again this often, for this long: a restart or a failover is
# over well within it. Past it, or should this process end first, the seat
# goes offline by its silence (Seat.SILENT_AFTER_SECONDS).
CLOSED_RETRY_SECONDS = 2.0
CLOSED_RETRY_FOR_SECONDS = 300.0


class LateCloses:
    """The closed sockets of this process whose seats could not be written
    offline while the database was away, written once it is back by one task:
    every CLOSED_RETRY_SECONDS, one trip to a command thread for all of them,
    which stops at the first that fails. A try per socket would hold a command
    thread for the pool's whole wait (KHELAGHOR_DB_POOL_TIMEOUT) each, and a
    thousand closes would queue the players' moves behind them long after the
    database came back. The count of a seat's sockets only goes down here, so
    it comes out right whatever opened or closed meanwhile."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, str, services.Actor]] = []
        self.task: asyncio.Task | None = None

    def add(self, code: str, actor: services.Actor) -> None:
        self.pending.append((time.monotonic() + CLOSED_RETRY_FOR_SECONDS, code, actor))
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._write_when_back())

    async def _write_when_back(self) -> None:
        while self.pending:
            await asyncio.sleep(CLOSED_RETRY_SECONDS)
            now = time.monotonic()
            batch = _by_room([entry for entry in self.pending if entry[0] > now])
            if len(batch) < len(self.pending):
                log.warning("%d closed socket(s) never had their seats written offline; "
                            "their silence will show", len(self.pending) - len(batch))
            self.pending = []
            try:
                written = await database_sync_to_async(_write_closes)(batch)
            except DATABASE_AWAY:
                written = 0  # still away
            except Exception:  # noqa: BLE001 - whatever it was, they are tried again
                log.exception("closed sockets' seats could not be written offline")
                written = 0
            self.pending[:0] = batch[written:]
            if written:
                log.info("%d closed socket(s) had their seats written offline once the "
                         "database was back", written)


def _by_room(batch: list[tuple[float, str, services.Actor]]
             ) -> list[tuple[float, str, services.Actor]]:
    """The batch with each room's sockets together (rooms in the order they
    first come), so that ``_write_closes`` writes a room's in one command."""
    first = {}
    for _, code, _ in batch:
        first.setdefault(code, len(first))
    return sorted(batch, key=lambda entry: first[entry[1]])


def _write_closes(batch: list[tuple[float, str, services.Actor]],
                  progress: list[int] | None = None, until: float | None = None) -> int:
    """In a command thread: ``connections_closed`` for each room's sockets
    (consecutive entries of one room: ``_by_room``), room by room in order,
    until the first room that finds the database away; how many sockets were
    written. One command per room, not per socket: a stopping server with 140
    players wrote them seat by seat in 1.7-4.4 s, and its time is bounded.
    Raises when the first room finds the database away, so the command
    threads learn it is still away. A stopping server's batch also counts
    them in ``progress`` as they are written, and starts no room after
    ``until`` (time.monotonic()): its caller has stopped waiting by then."""
    written = 0
    while written < len(batch):
        if until is not None and time.monotonic() > until:
            return written
        code = batch[written][1]
        room = written
        while room < len(batch) and batch[room][1] == code:
            room += 1
        try:
            services.connections_closed(code, [actor for _, _, actor in batch[written:room]])
        except DATABASE_AWAY:
            if not written:
                raise
            return written
        written = room
        if progress is not None:
            progress[0] = written
    return written


late_closes = LateCloses()


# This process's sockets that are in a room (connect .. disconnect): what a
# stopping server writes offline (seats_offline_for_stop).
open_sockets: set[RoomConsumer] = set()
# How long a stopping server waits for those seats to be written.
STOPPING_WRITE_SECONDS = 10.0
# Set as the server begins to stop. Daphne accepts sockets until the seats
# are written (up to STOPPING_WRITE_SECONDS): one that would be counted after
# that is closed with CLOSE_TRY_AGAIN instead, and its page comes back to
# another process. Counted, its seat stayed "connected" after the process had
# gone (an operator's drill: 20 of 20 sockets opened 50 ms after SIGTERM).
stopping = False


async def seats_offline_for_stop() -> int:
    """The server is stopping (a deploy's SIGTERM; config.asgi calls this
    before daphne closes its sockets): write every seat this process's sockets
    hold offline, in one trip to a command thread, and return how many were
    written. Without it the process exits with those sockets' consumers still
    waiting (daphne never runs their disconnect), and their seats looked
    occupied until the silence showed (Seat.SILENT_AFTER_SECONDS), 40 s after
    the players had reconnected to another process or gone. Sockets that
    were being counted as it began are waited for and written with the
    others, and so are the closes still waiting for a database that was away
    (LateCloses). Bounded: a database that does not answer leaves the seats
    not yet written to that silence, as before."""
    global stopping
    stopping = True
    until = time.monotonic() + STOPPING_WRITE_SECONDS
    sockets = list(open_sockets)
    open_sockets.clear()
    for socket in sockets:
        socket.written_offline = True  # its disconnect, should it still come, skips the seat
    being_counted = [socket.counting for socket in sockets
                     if socket.counting is not None and not socket.counting.done()]
    if being_counted:
        await asyncio.wait(being_counted, timeout=STOPPING_WRITE_SECONDS)
    stopping_sockets = [socket for socket in sockets if _was_counted(socket)]
    # And the sockets that closed while the database was away, still waiting
    # for it (LateCloses): this process will not be there to try again.
    waiting, late_closes.pending = late_closes.pending, []
    if not stopping_sockets and not waiting:
        return 0
    batch = _by_room([(0.0, socket.code, socket.actor()) for socket in stopping_sockets]
                     + waiting)
    progress = [0]
    left = max(0.0, until - time.monotonic())
    try:
        written = await asyncio.wait_for(
            database_sync_to_async(_write_closes)(batch, progress, until), left)
    except DATABASE_AWAY as exc:
        written, reason = 0, str(exc)
    except TimeoutError:
        written, reason = progress[0], f"no answer in {STOPPING_WRITE_SECONDS:g} s"
    else:
        reason = "" if written == len(batch) else (
            f"the database went away, or {STOPPING_WRITE_SECONDS:g} s ran out")
    if reason:
        log.warning("the server is stopping: %d of %d socket(s)' seats written offline (%s); "
                    "the others' silence will show", written, len(batch), reason)
    else:
        log.info("the server is stopping: %d of %d socket(s)' seats written offline",
                 written, len(batch))
    return written


def _heard(counting: asyncio.Future) -> None:
    """A count's failure is the consumer's to handle, or nobody's once it was
    cancelled: not asyncio's "exception was never retrieved"."""
    if not counting.cancelled():
        counting.exception()


def _was_counted(socket: RoomConsumer) -> bool:
    """Whether the socket's connect counted it on a seat: its own word, or,
    where daphne cancelled the consumer before it heard, its count's result."""
    if socket.counted:
        return True
    counting = socket.counting
    if counting is None or not counting.done() or counting.cancelled():
        return False
    return counting.exception() is None and counting.result()[0]


@database_sync_to_async
def _door(session, code: str, address: str) -> tuple[str, int | None, Any]:
    """What a socket needs before it joins its room, in one trip to a command
    thread: its signed-in user's id (None for a guest), its session key (a new
    visitor's session is saved first), and the room its code names, looked up
    as a guess (rooms.guessing: raises TooManyGuesses or NotFound).

    Channels' AuthMiddleware found the user in a trip of its own, through
    Channels' wrapper, which closes the thread's database connection after
    each call, so the next took one from the pool again (docs/performance.md,
    round 12). The user comes first, as it did there: a session whose
    password hash no longer matches is flushed, and the socket then speaks for
    the new, empty session."""
    user = auth.get_user(SimpleNamespace(session=session))
    # A new visitor's session, a flushed one, or a hash get_user moved to the
    # current secret key: saved before the key is used.
    if session.modified or not session.session_key:
        session.save()
    room = guessing.look_up(code, session.session_key, address)
    user_id = user.id if user.is_authenticated else None
    return session.session_key, user_id, room


@database_sync_to_async
def _snapshot(code: str, session_key: str, showing: int | None = None) -> dict[str, Any]:
    return services.snapshot_for(code, session_key, showing)


@database_sync_to_async
def _opened(code: str, actor: services.Actor,
            showing: int | None) -> tuple[bool, dict[str, Any]]:
    """A page connected: its seats are present, and here is its snapshot. One
    trip to a database thread where there were two: after a restart every page
    connects at once (docs/performance.md, "Pings together"). Also whether
    the connection was counted on a seat."""
    return services.connection_opened(code, actor, showing)


def _decode(text_data: str | None) -> dict[str, Any]:
    """A client frame as a JSON object (its ``type`` is checked once its id
    is read: ``_checked``). Anything else is a BadMessage, however the
    decoding fails: a frame of 2 KB can nest arrays deeper than Python's
    recursion limit (RecursionError)."""
    if text_data is None:
        raise errors.BadMessage("Send text frames of JSON")
    try:
        message = json.loads(text_data)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        raise errors.BadMessage("That is not JSON") from None
    if not isinstance(message, dict):
        raise errors.BadMessage("A message is a JSON object with a type")
    return message


def _id_of(message: dict[str, Any]) -> str | None:
    """The message's ``id``, echoed in its reply; BadMessage if it is not one."""
    message_id = message.get("id")
    if message_id is not None and (not isinstance(message_id, str) or len(message_id) > 40):
        raise errors.BadMessage("id must be a string of at most 40 characters")
    return message_id


def _checked(message: dict[str, Any]) -> None:
    """BadMessage unless the message has a text ``type``. Checked after its
    id is read: a message with an id but no type (or a number for one) was
    refused without the id, and a client waiting for the reply to that id
    waited for ever (docs/protocol.md: every message with an id gets one reply)."""
    if not isinstance(message.get("type"), str):
        raise errors.BadMessage("A message is a JSON object with a type")


def _readable_id(text_data: str | None) -> str | None:
    """The id of a frame that is refused unread (rate limit), when it has one."""
    try:
        return _id_of(_decode(text_data))
    except errors.BadMessage:
        return None


class RoomConsumer(AsyncWebsocketConsumer):
    room_id: int | None = None
    # Pass and play (one device, several seats): the game hides each player's
    # dice, and the seat this device was handed to (``show_seat``) or None.
    secret_hands = False
    showing: int | None = None
    # Set when this side closes the socket: nothing more is sent or handled
    # after the close frame (daphne refuses sends on a closing socket).
    closing = False
    # Whether this socket counts in a seat's ``connections``: counted when it
    # opened (its session had a seat) or when it joined one. Its close undoes
    # only that: a spectator's close needs no database, and a spectator tab
    # of a seated player no longer takes the seat offline as it closes.
    counted = False
    # Set when a stopping server has written this socket's seat offline
    # (seats_offline_for_stop): its close does not write it again.
    written_offline = False
    # The connect's count (_opened) while it runs: a stopping server waits
    # for it (seats_offline_for_stop), and reads its result if daphne
    # cancelled the consumer before the consumer could.
    counting: asyncio.Future | None = None
    _actor: services.Actor | None = None  # actor()
    user_id: int | None = None  # the signed-in user's, found at connect (_door)

    async def __call__(self, scope, receive, send):
        """Channels' consumer, except that a socket which cannot get its
        channel or join its group because Redis is away is turned away with a
        warning (before the handshake: refused; after: closed with
        CLOSE_TRY_AGAIN), not a traceback per attempt while every page of the
        site retries. The page comes back with its backoff; the games go on
        meanwhile (docs/deploy.md, "Redis and PostgreSQL notes")."""
        try:
            await super().__call__(scope, receive, send)
        except REDIS_AWAY as exc:
            log.warning("a socket was turned away: the channel layer's Redis is away (%s)", exc,
                        extra=REDIS_AWAY_NOTE)
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Skip the ``close_old_connections`` thread hop that Channels makes
        before every handler: one hop per seat per move was a sixth of the
        server's CPU under load, and a spectator who comes and goes paid three
        (docs/performance.md). It closes only the connection of Channels' one
        shared thread, and no database work here happens there outside
        ``database_sync_to_async``, whose wrappers look after their own
        connections (rooms.threads; Channels' closes stale ones around
        itself)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            await super().dispatch(message)  # Channels' error for an unknown type
            return
        await handler(message)
        if message["type"].startswith("room."):
            # Channels' dispatch loop keeps the last message in a local
            # until the next one comes, and every socket gets its own
            # copy of a room update with every seat's payload: emptied,
            # an idle socket holds none (6 KB each, bench/bench_memory.py).
            message.clear()

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        """Channels' own, without its ``close_old_connections`` hop (``dispatch``);
        this consumer joins its room's group itself (``connect``), so it has no
        ``groups`` for Channels to leave."""
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def connect(self) -> None:
        publish.from_event_loop()
        await ticker.clocks_ready()  # after a full restart: once the clocks paused
        # Channels activates no language: this socket's errors are written in the
        # language its page was (cookie, else Accept-Language), fixed at connect.
        self.language = scope_language(self.scope)
        if not socket_origin_matches(self.scope):
            await self.close()  # before accept: the handshake is refused (HTTP 403)
            return
        self.window_start = time.monotonic()
        self.window_count = 0
        self.seen_at = time.monotonic()  # connection_opened marks the seat present
        self.last_reaction = 0.0
        self.code = codes.normalize(self.scope["url_route"]["kwargs"]["code"])
        session = self.scope.get("session")
        if session is None:
            await self.close(code=CLOSE_NO_ROOM)
            return
        await self.accept()
        sent_key = session.session_key
        try:
            self.session_key, self.user_id, room = await _door(
                session, self.code, scope_address(self.scope))
        except DATABASE_AWAY as exc:
            await self._turned_away(exc)
            return
        except guessing.TooManyGuesses as refusal:
            with translation.override(self.language):
                message = guessing.refusal_text(refusal.retry_after)
            await self._send({"type": "error", "code": refusal.code, "message": message,
                              "retry_after": refusal.retry_after})
            await self.close(code=CLOSE_FLOOD)
            return
        except errors.NotFound as exc:
            await self._error(exc)
            await self.close(code=CLOSE_NO_ROOM)
            return
        # The handshake brought no session cookie (a program that skipped the
        # pages), or one the server could not use (expired, or its password
        # changed): the session made for the socket has a key its client never
        # learns, as no cookie can be set over a socket. A seat taken with it
        # could never be found again, so join refuses it (do_join).
        self.cookieless = self.session_key != sent_key
        self.owner = owner_tag(self.session_key)
        self.room_id = room.id
        self.secret_hands = declaration(room.game).secret_hands
        await self.channel_layer.group_add(room_group(room.id), self.channel_name)
        fresh.listening(room.id)
        self.joined_group_at = time.monotonic()
        if stopping:  # too late to be counted here: the page comes back to another process
            await self.close(code=CLOSE_TRY_AGAIN)
            return
        open_sockets.add(self)
        self.counting = asyncio.ensure_future(_opened(self.code, self.actor(), self.showing))
        self.counting.add_done_callback(_heard)
        try:
            # Shielded: daphne cancels the consumers as the server stops, and
            # the count must still come to an end the stop can read.
            self.counted, snapshot = await asyncio.shield(self.counting)
        except DATABASE_AWAY as exc:  # the close's disconnect leaves the group again
            self.counting = None
            await self._turned_away(exc)
            return
        self.counting = None  # ``counted`` says it now; the snapshot is not kept
        await self._send(snapshot)
        ticker.ensure_started()

    async def disconnect(self, code: int) -> None:
        if self.room_id is None:
            return
        open_sockets.discard(self)
        fresh.not_listening(self.room_id)
        try:
            await self.channel_layer.group_discard(room_group(self.room_id), self.channel_name)
        except REDIS_AWAY as exc:
            # The layer has forgotten the channel already; only Redis's
            # subscription is left, and it carries nothing anyone here hears.
            # The seat is released all the same: it raised past that before,
            # and the player stayed "connected" until the silence showed.
            log.warning("a closing socket could not leave its group: Redis is away (%s)", exc,
                        extra=REDIS_AWAY_NOTE)
        if self.counted and not self.written_offline:
            try:
                await database_sync_to_async(services.connection_closed)(self.code, self.actor())
            except DATABASE_AWAY as exc:
                log.warning("a closing socket's seat could not be written offline: the "
                            "database is away (%s); this process tries again", exc,
                            extra=DATABASE_AWAY_NOTE)
                late_closes.add(self.code, self.actor())

    def actor(self) -> services.Actor:
        """Who this socket speaks for, built on its first command and kept: its
        session and user are fixed for the socket's life, and the one thing
        that changes, its nickname, is set through ``_set_nickname``, which
        forgets it. Reading them through the session and the lazy user on
        every move was 1 % of a server's CPU (docs/performance.md)."""
        actor = self._actor
        if actor is None:
            session = self.scope["session"]
            actor = self._actor = services.Actor(self.session_key, session.get("nickname", ""),
                                                 self.user_id)
        return actor

    # ---- incoming -------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        # When the server read the frame: an action read before its turn's
        # deadline beats the timeout, however long it then waits (do_action).
        self.received_at = clock.timestamp()
        if self.closing or self.room_id is None:
            # Frames that were on their way when we closed (here, or in connect
            # for an unknown code, which leaves room_id unset): no answer.
            return
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        if size > MAX_FRAME_BYTES:
            await self._close_after(errors.TooLarge("Message too large"), CLOSE_TOO_LARGE)
            return
        allowed = self._within_rate()
        if allowed is None:
            await self._close_after(errors.RateLimited("Too many messages"), CLOSE_FLOOD,
                                    _readable_id(text_data))
            return
        if not allowed:
            await self._error(errors.RateLimited("Too many messages; slow down"),
                              _readable_id(text_data))
            return
        message_id = None
        try:
            message = _decode(text_data)
            message_id = _id_of(message)
            _checked(message)
            handler = getattr(self, f"do_{message['type']}", None)
            if handler is None:
                raise errors.BadMessage("Unknown message type {type}",
                                        type=repr(message["type"][:30]))
            if message["type"] != "action":  # an action renews presence in its own command
                await self._still_here()
            # One reply carries the id: the handler's own (ping's pong) or ok.
            reply = await handler(message) or ({"type": "ok"} if message_id is not None else None)
            if reply is not None:
                await self._send(reply if message_id is None else {**reply, "id": message_id})
        except errors.StaleVersion as exc:
            await self._error(exc, message_id)
            await self._send(await _snapshot(self.code, self.session_key, self.showing))
        except errors.RoomError as exc:
            await self._error(exc, message_id)
        except DATABASE_AWAY as exc:
            # The socket stays: the player sends it again once the database is
            # back. Raised out of here it ended the consumer, and the page
            # reconnected into the same outage.
            log.warning("a message could not be handled: the database is away (%s)", exc,
                        extra=DATABASE_AWAY_NOTE)
            await self._error(_database_away(), message_id)

    async def _turned_away(self, exc: Exception) -> None:
        """A socket that could not be let in because the database is away:
        told so, then closed with CLOSE_TRY_AGAIN (its page comes back with
        its backoff). Raised out of ``connect`` it ended the consumer with a
        traceback and an HTTP 500 or a bare close."""
        log.warning("a socket was turned away: the database is away (%s)", exc,
                    extra=DATABASE_AWAY_NOTE)
        await self._error(_database_away())
        self.closing = True
        await self.close(code=CLOSE_TRY_AGAIN)

    async def _close_after(self, exc: errors.RoomError, close_code: int,
                           message_id: str | None = None) -> None:
        """Abuse: say why, then close; nothing is sent after the close."""
        await self._error(exc, message_id)
        self.closing = True
        await self.close(code=close_code)

    def _within_rate(self) -> bool | None:
        """True within the rate, False past RATE_LIMIT (refused), None past
        FLOOD_LIMIT (the connection is closed)."""
        now = time.monotonic()
        if now - self.window_start > RATE_WINDOW:
            self.window_start, self.window_count = now, 0
        self.window_count += 1
        if self.window_count > FLOOD_LIMIT:
            return None
        return self.window_count <= RATE_LIMIT

    async def _still_here(self) -> None:
        """Any message from the page, not only a ping, shows the player is
        here (models.Seat.connected); written at most every SEEN_EVERY s, with
        the other sockets' marks (rooms.seen). Actions write it with their own
        move (rooms.services.presence.seen)."""
        now = time.monotonic()
        if self.room_id is not None and now - self.seen_at >= services.SEEN_EVERY:
            self.seen_at = now
            await seen.writer(database_sync_to_async).mark(self.code, self.session_key)

    async def _call(self, service, *args):
        return await command(service)(self.code, self.actor(), *args)

    async def do_ping(self, message):
        if time.monotonic() - self.joined_group_at > GROUP_REFRESH_SECONDS:
            # channels-redis forgets group members after group_expiry (a day);
            # a socket open that long re-joins rather than going deaf.
            await self.channel_layer.group_add(room_group(self.room_id), self.channel_name)
            self.joined_group_at = time.monotonic()
        return {"type": "pong"}

    async def do_join(self, message):
        if self.cookieless:
            raise errors.BadMessage(
                "This connection came without a session cookie, so its seat could not be "
                "kept for you: open the room's page first, then connect with its cookie")
        name = message.get("name")
        if name is not None:
            await self._set_nickname(name)
        seat = message.get("seat")
        seed = message.get("client_seed")
        if seed is not None and not isinstance(seed, str):
            raise errors.BadMessage("client_seed must be text")
        change = await database_sync_to_async(services.seat_join)(
            self.code, self.actor(), seat, seed, over_socket=True
        )
        # A new seat counts this socket; joining again, already seated, does not.
        if any(event["type"] == "joined" for event in change.events):
            self.counted = True

    async def _set_nickname(self, name: Any) -> None:
        try:
            with translation.override(self.language):
                self.scope["session"]["nickname"] = clean_nickname(name)
        except BadNickname as exc:
            raise errors.BadMessage(str(exc)) from None
        self._actor = None  # built again with the new name
        await database_sync_to_async(self.scope["session"].save)()
        if self.user_id is not None:
            await database_sync_to_async(keep_on_account)(self.user_id,
                                                          self.scope["session"]["nickname"])

    async def do_leave(self, message):
        await self._call(services.seat_leave)

    async def do_seed(self, message):
        seed = message.get("client_seed")
        if not isinstance(seed, str):
            raise errors.BadMessage("client_seed must be text")
        await self._call(services.seat_seed, seed)

    async def do_add_bot(self, message):
        await self._call(services.bot_add, message.get("seat"), message.get("bot"))

    async def do_remove_bot(self, message):
        await self._call(services.bot_remove, message.get("seat"))

    async def do_take_host(self, message):
        await self._call(services.host_take)

    async def do_free_seat(self, message):
        await self._call(services.seat_free, message.get("seat"))

    async def do_add_device_player(self, message):
        name = message.get("name")
        try:  # refused in this page's language, like a nickname (do_join)
            with translation.override(self.language):
                name = clean_nickname(name)
        except BadNickname as exc:
            raise errors.BadMessage(str(exc)) from None
        await self._call(services.device_player_add, message.get("seat"), name)

    async def do_remove_device_player(self, message):
        await self._call(services.device_player_remove, message.get("seat"))

    async def do_show_seat(self, message):
        """The cover's tap: the phone was passed to the player of ``seat``,
        whose turn it is; from now on, until the turn moves, this socket
        gets that seat's view (room_update)."""
        seat = message.get("seat")
        snapshot = await database_sync_to_async(services.turn_snapshot_for)(
            self.code, self.session_key, seat)
        self.showing = seat
        return snapshot

    async def do_set_options(self, message):
        await self._call(services.options_set, message.get("options"), message.get("pace"))

    async def do_start(self, message):
        await self._call(services.game_start)

    async def do_start_now(self, message):
        await self._call(services.room_start_now)

    async def do_rematch(self, message):
        await self._call(services.game_start)

    async def do_action(self, message):
        version = message.get("version")
        # A version that is missing or not a whole number is a malformed message,
        # not an old one: stale_version is only for a real version the room has left.
        if not isinstance(version, int) or isinstance(version, bool):
            raise errors.BadMessage("version must be the room's version number")
        # Claim the turn before the command queues for a database thread: the
        # timer defers while the claim stands (services.deadline_fire).
        backend = get_timer_backend()
        claimed = await self._claim(backend, version)
        try:
            change = await self._call(services.game_action, version, message.get("action"),
                                      message.get("seat"))
        except BaseException:
            if claimed:  # refused: the room did not move, so the clock may run again
                await self._release(backend)
            raise
        if change.refusal is not None:
            raise change.refusal

    async def _claim(self, backend, version: int) -> bool:
        try:
            await backend.claim_action_async(self.room_id, self.session_key, version,
                                             self.received_at)
        except Exception as exc:  # Redis is away: the action goes on, unclaimed
            log.warning("could not claim an action (%s)", exc, extra=REDIS_AWAY_NOTE)
            return False
        return True

    async def _release(self, backend) -> None:
        try:
            await backend.release_action_async(self.room_id, self.session_key)
        except Exception as exc:  # the claim expires on its own
            log.warning("could not release an action claim (%s)", exc, extra=REDIS_AWAY_NOTE)

    async def do_reclaim(self, message):
        await self._call(services.seat_reclaim, message.get("seat"))

    async def do_react(self, message):
        reaction = message.get("reaction")
        if not isinstance(reaction, str) or reaction not in REACTIONS:
            raise errors.BadMessage("Unknown reaction")
        now = time.monotonic()
        if now - self.last_reaction < 1.0:
            raise errors.RateLimited("One reaction a second, please")
        seat = await database_sync_to_async(services.seat_index_of)(self.code, self.session_key)
        if seat is None:
            raise errors.NotSeated("Take a seat to react")
        self.last_reaction = now
        group = room_group(self.room_id)
        message = {"type": "room.reaction", "seat": seat, "reaction": reaction}
        try:
            await self.channel_layer.group_send(group, message)
        except REDIS_AWAY as exc:  # as a room's update: to this process's sockets at least
            heard = publish.deliver_here(self.channel_layer, group, message)
            log.warning("Redis is away (%s): a reaction went to the %d socket(s) of this "
                        "process only", exc, heard, extra=REDIS_AWAY_NOTE)

    # ---- outgoing -------------------------------------------------------------

    async def room_update(self, message: dict[str, Any]) -> None:
        fresh.heard(self.room_id, message["version"])  # from any process
        if self.closing:
            return
        seat = message["owners"].get(self.owner)
        held = message.get("devices", {}).get(self.owner)
        if held is not None:
            await self._device_update(message, seat, held)
            return
        payload = message["payloads"].get("spectator" if seat is None else str(seat))
        if payload is not None:
            await self.send(text_data=payload)  # already JSON text (rooms.publish)

    async def _device_update(self, message: dict[str, Any], own: int | None,
                             held: list[int]) -> None:
        """A device several players share: the payload of the seat it shows
        (selectors.device_seat_shown), with the ``device`` field added. The
        handed-over seat is forgotten as soon as it is not the turn's."""
        shown = device_seat_shown(held=held, own=own, turn_seat=message.get("turn"),
                                  showing=self.showing, secret=self.secret_hands)
        if shown is None or shown != self.showing:
            self.showing = None
        payload = message["payloads"].get("spectator" if shown is None else str(shown))
        if payload is None:
            return
        device = compact(device_json(held, own, self.secret_hands))
        # The payload is a JSON object's text: the field goes in front of the others.
        await self.send(text_data='{"device":' + device + "," + payload[1:])

    async def room_reaction(self, message: dict[str, Any]) -> None:
        await self._send(
            {"type": "reaction", "seat": message["seat"], "reaction": message["reaction"]}
        )

    async def room_ratings(self, message: dict[str, Any]) -> None:
        """How a finished game's rated seats' ratings moved (accounts_optional.ratings):
        to every socket, spectators too, as ratings are public on the leaderboards."""
        await self._send(
            {"type": "ratings", "game": message["game"], "changes": message["changes"]}
        )

    async def _send(self, payload: dict[str, Any]) -> None:
        if self.closing:
            return
        await self.send(text_data=compact(payload))

    async def send(self, text_data=None, bytes_data=None, close=False) -> None:
        """Channels' send, except that a frame for a socket the client has
        just dropped is let go (``SOCKET_GONE``). Raised out of a handler, the
        server's refusal ended this consumer before its ``disconnect``: the
        seat stayed counted as connected until its silence showed (about 40
        s), the group kept the dead channel, and the server logged the
        client's hang-up as an application error. The server queues the
        ``websocket.disconnect`` as the socket goes, and that runs the
        clean-up as for any close. Frames the client sent before it dropped
        are still handled (an action read before its deadline counts); only
        their replies are lost."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except SOCKET_GONE:
            pass

    async def _error(self, exc: errors.RoomError, message_id: Any = None, code: str = "") -> None:
        with translation.override(self.language):
            text = exc.localised()
        reply = {"type": "error", "code": code or exc.code, "message": text}
        if message_id is not None:
            reply["id"] = message_id
        await self._send(reply)
