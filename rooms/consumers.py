"""The room WebSocket (docs/protocol.md): parse, call a service, reply.

The consumer keeps no game state: everything lives in the database and arrives
through the room's group as one payload per seat, of which this connection
forwards only its own. Bad input gets a typed error and changes nothing; only
abuse (oversize frames, flooding) closes the connection.
"""

from __future__ import annotations

import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async as _db_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from config.clients import scope_address

from . import codes, errors, guessing, publish, services, ticker
from .publish import room_group
from .selectors import owner_tag

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 4096
RATE_WINDOW = 2.0
RATE_LIMIT = 20  # messages per window before they are refused
FLOOD_LIMIT = 60  # messages per window before the connection is closed
REACTIONS = frozenset(
    ["thumbs_up", "laugh", "wow", "clap", "well_played", "hurry_up", "good_luck", "oops"]
)
_ONE_DB_THREAD = settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
GROUP_REFRESH_SECONDS = 3600
CLOSE_NO_ROOM = 4004
CLOSE_TOO_LARGE = 4009
CLOSE_FLOOD = 4029


# Room commands get their own small pool (settings.KHELAGHOR_DB_THREADS): more
# threads than that wait longer for the GIL than they gain (docs/performance.md).
_DB_THREADS = None if _ONE_DB_THREAD else ThreadPoolExecutor(
    max_workers=settings.KHELAGHOR_DB_THREADS, thread_name_prefix="khelaghor-db"
)


def database_sync_to_async(func):
    """On PostgreSQL, database work runs in pool threads rather than the
    process's one shared thread: each room is serialised by its row lock, so
    rooms need not wait for each other's commands (docs/performance.md). SQLite
    takes one write lock for the whole file anyway (and its shared-cache test
    database refuses concurrent writers outright), so it keeps the one thread."""
    if _ONE_DB_THREAD:
        return _db_sync_to_async(func)
    return _db_sync_to_async(func, thread_sensitive=False, executor=_DB_THREADS)


@database_sync_to_async
def _ensure_session(session) -> str:
    if not session.session_key:
        session.save()
    return session.session_key


@database_sync_to_async
def _snapshot(code: str, session_key: str) -> dict[str, Any]:
    return services.snapshot_for(code, session_key)


class RoomConsumer(AsyncWebsocketConsumer):
    room_id: int | None = None

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Skip the ``close_old_connections`` thread hop that Channels makes
        before every handler, for incoming frames and group messages: one hop
        per seat per move was a sixth of the server's CPU under load
        (docs/performance.md). Every database call here runs through
        ``database_sync_to_async``, which closes stale connections around
        itself; connect and disconnect keep Channels' own handling."""
        if message["type"] == "websocket.receive" or message["type"].startswith("room."):
            handler = getattr(self, get_handler_name(message), None)
            if handler is not None:
                await handler(message)
                return
        await super().dispatch(message)

    async def connect(self) -> None:
        publish.from_event_loop()
        self.window_start = time.monotonic()
        self.window_count = 0
        self.seen_at = time.monotonic()  # connection_opened marks the seat present
        self.last_reaction = 0.0
        self.code = codes.normalize(self.scope["url_route"]["kwargs"]["code"])
        session = self.scope.get("session")
        if session is None:
            await self.close(code=CLOSE_NO_ROOM)
            return
        self.session_key = await _ensure_session(session)
        self.owner = owner_tag(self.session_key)
        await self.accept()
        who = (self.session_key, scope_address(self.scope))
        try:
            if not await database_sync_to_async(guessing.may_guess)(*who):
                raise errors.RoomError("Too many unknown room codes; wait a few minutes")
            room = await database_sync_to_async(services.room_get)(self.code)
        except errors.NotFound as exc:
            await database_sync_to_async(guessing.count_miss)(*who)
            await self._error(exc)
            await self.close(code=CLOSE_NO_ROOM)
            return
        except errors.RoomError as exc:
            await self._error(exc, code="rate_limited")
            await self.close(code=CLOSE_FLOOD)
            return
        self.room_id = room.id
        await self.channel_layer.group_add(room_group(room.id), self.channel_name)
        self.joined_group_at = time.monotonic()
        await database_sync_to_async(services.connection_opened)(self.code, self.actor())
        await self._send(await _snapshot(self.code, self.session_key))
        ticker.ensure_started()

    async def disconnect(self, code: int) -> None:
        if self.room_id is None:
            return
        await self.channel_layer.group_discard(room_group(self.room_id), self.channel_name)
        await database_sync_to_async(services.connection_closed)(self.code, self.actor())

    def actor(self) -> services.Actor:
        session = self.scope["session"]
        user = self.scope.get("user")
        user_id = user.id if user is not None and user.is_authenticated else None
        return services.Actor(self.session_key, session.get("nickname", ""), user_id)

    # ---- incoming -------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        if size > MAX_FRAME_BYTES:
            await self._error(errors.RoomError("Message too large"), code="too_large")
            await self.close(code=CLOSE_TOO_LARGE)
            return
        allowed = self._within_rate()
        if allowed is None:
            await self._error(errors.RoomError("Too many messages"), code="rate_limited")
            await self.close(code=CLOSE_FLOOD)
            return
        if not allowed:
            await self._error(
                errors.RoomError("Too many messages; slow down"), code="rate_limited"
            )
            return
        message_id = None
        try:
            if text_data is None:
                raise errors.BadMessage("Send text frames of JSON")
            try:
                message = json.loads(text_data)
            except json.JSONDecodeError:
                raise errors.BadMessage("That is not JSON") from None
            if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                raise errors.BadMessage("A message is a JSON object with a type")
            message_id = message.get("id")
            if message_id is not None and (not isinstance(message_id, str) or len(message_id) > 40):
                message_id = None
                raise errors.BadMessage("id must be a string of at most 40 characters")
            handler = getattr(self, f"do_{message['type']}", None)
            if handler is None:
                raise errors.BadMessage(f"Unknown message type {message['type'][:30]!r}")
            if message["type"] != "action":  # an action renews presence in its own command
                await self._still_here()
            await handler(message)
            if message_id is not None:
                await self._send({"type": "ok", "id": message_id})
        except errors.StaleVersion as exc:
            await self._error(exc, message_id)
            await self._send(await _snapshot(self.code, self.session_key))
        except errors.RoomError as exc:
            await self._error(exc, message_id)

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
        here (models.Seat.connected); written at most every SEEN_EVERY s.
        Actions write it with their own move (services._seen)."""
        now = time.monotonic()
        if self.room_id is not None and now - self.seen_at >= services.SEEN_EVERY:
            self.seen_at = now
            await database_sync_to_async(services.seat_seen)(self.code, self.actor())

    async def _call(self, service, *args):
        return await database_sync_to_async(service)(self.code, self.actor(), *args)

    async def do_ping(self, message):
        if time.monotonic() - self.joined_group_at > GROUP_REFRESH_SECONDS:
            # channels-redis forgets group members after group_expiry (a day);
            # a socket open that long re-joins rather than going deaf.
            await self.channel_layer.group_add(room_group(self.room_id), self.channel_name)
            self.joined_group_at = time.monotonic()
        await self._send({"type": "pong"})

    async def do_join(self, message):
        name = message.get("name")
        if name is not None:
            await self._set_nickname(name)
        seat = message.get("seat")
        seed = message.get("client_seed")
        if seed is not None and not isinstance(seed, str):
            raise errors.BadMessage("client_seed must be text")
        await database_sync_to_async(services.seat_join)(
            self.code, self.actor(), seat, seed, over_socket=True
        )

    async def _set_nickname(self, name: Any) -> None:
        from .nicknames import BadNickname, clean_nickname

        try:
            self.scope["session"]["nickname"] = clean_nickname(name)
        except BadNickname as exc:
            raise errors.BadMessage(str(exc)) from None
        await database_sync_to_async(self.scope["session"].save)()

    async def do_leave(self, message):
        await self._call(services.seat_leave)

    async def do_seed(self, message):
        seed = message.get("client_seed")
        if not isinstance(seed, str):
            raise errors.BadMessage("client_seed must be text")
        await self._call(services.seat_seed, seed)

    async def do_add_bot(self, message):
        await self._call(services.bot_add, message.get("seat"), message.get("bot") or "standard")

    async def do_remove_bot(self, message):
        await self._call(services.bot_remove, message.get("seat"))

    async def do_set_options(self, message):
        await self._call(services.options_set, message.get("options"), message.get("pace"))

    async def do_start(self, message):
        await self._call(services.game_start)

    async def do_rematch(self, message):
        await self._call(services.game_start)

    async def do_action(self, message):
        change = await self._call(
            services.game_action, message.get("version"), message.get("action")
        )
        if change.refusal is not None:
            raise change.refusal

    async def do_reclaim(self, message):
        await self._call(services.seat_reclaim)

    async def do_react(self, message):
        reaction = message.get("reaction")
        if reaction not in REACTIONS:
            raise errors.BadMessage("Unknown reaction")
        now = time.monotonic()
        if now - self.last_reaction < 1.0:
            raise errors.RoomError("One reaction a second, please")
        seat = await database_sync_to_async(services.seat_index_of)(self.code, self.session_key)
        if seat is None:
            raise errors.NotSeated("Take a seat to react")
        self.last_reaction = now
        await self.channel_layer.group_send(
            room_group(self.room_id),
            {"type": "room.reaction", "seat": seat, "reaction": reaction},
        )

    # ---- outgoing -------------------------------------------------------------

    async def room_update(self, message: dict[str, Any]) -> None:
        seat = message["owners"].get(self.owner)
        payload = message["payloads"].get("spectator" if seat is None else str(seat))
        if payload is not None:
            await self.send(text_data=payload)  # already JSON text (rooms.publish)

    async def room_reaction(self, message: dict[str, Any]) -> None:
        await self._send(
            {"type": "reaction", "seat": message["seat"], "reaction": message["reaction"]}
        )

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload, ensure_ascii=False, separators=(",", ":")))

    async def _error(self, exc: errors.RoomError, message_id: Any = None, code: str = "") -> None:
        reply = {"type": "error", "code": code or exc.code, "message": exc.message}
        if message_id is not None:
            reply["id"] = message_id
        await self._send(reply)
