"""Turn timers: where deadlines wait until they are due.

A room schedules one deadline per *key* ("g:<game id>" for a game's pending
decision, "r:<room id>" for a public table's automatic start) with a payload
(the game's move sequence number). Whoever polls calls ``claim_due(now)`` and
gets each due key with its payload; when done it calls ``ack``. Delivery is at
least once; the database makes the effect exactly once: ``deadline_fire`` acts
only if the game's ``seq`` is still the one scheduled, under the room's lock.

Two backends, one interface, one shared contract test (Django's session
backends are the model), chosen by ``settings.KHELAGHOR_TIMER_BACKEND``:
- ``InProcessTimers``: a heap in this process (the one-machine default).
- ``RedisTimers``: a sorted set of key -> deadline claimed by a Lua script that
  moves due members into a processing set with a lease and puts expired leases
  back, so any number of processes may poll, and a killed one loses nothing.

The same place also keeps *action claims* (docs/protocol.md, "An action
received in time beats the timeout"): when a room socket reads an action it
records "this session acted on room R at version V, received at t" here,
before the command waits for a database thread; ``deadline_fire`` defers while
the turn's seat holds such a claim made before the deadline. In-process for
the one-process default, in Redis (one key per room and session, expiring on
its own) when several processes share the rooms.
"""

from __future__ import annotations

import asyncio
import heapq
import threading
import time
from abc import ABC, abstractmethod

from django.conf import settings
from django.utils.module_loading import import_string
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from rooms.redis_line import RedisLine, line_for

Claim = tuple[str, int]
# An action claim: the room version the action was sent for, and the server
# time (rooms.clock, Unix seconds) its frame was read.
ActionClaim = tuple[int, float]
# A claim lives this long at most: a process killed while an action waited in
# its queue must not hold the table's clock for longer (see deadline_fire).
CLAIM_TTL_SECONDS = 10


class TimerBackend(ABC):
    name = "timers"

    @abstractmethod
    def schedule(self, key: str, payload: int, deadline_ts: float) -> None:
        """Fire ``key`` with ``payload`` at ``deadline_ts`` (Unix seconds),
        replacing whatever was scheduled for ``key``."""

    async def schedule_async(self, key: str, payload: int, deadline_ts: float) -> None:
        """``schedule`` from the event loop, never blocking it for long."""
        self.schedule(key, payload, deadline_ts)

    # Whether ``schedule_async`` is cheaper for a server than ``schedule`` in
    # the thread that ran the move (rooms.publish.arm_game hands it over).
    arms_on_loop = False

    def shares_redis(self, address: str) -> bool:
        """Whether this backend keeps its deadlines on the Redis at
        ``address`` (a URL), so a broadcast published there can carry an arm
        (``RedisTimers.publish_and_schedule_async``)."""
        return False

    @abstractmethod
    def cancel(self, key: str) -> None:
        """Forget ``key``'s deadline, if any."""

    @abstractmethod
    def claim_due(self, now: float, limit: int = 200) -> list[Claim]:
        """Take every key due at ``now`` (at most ``limit``) with its payload.
        A claim not acked within the lease is handed out again."""

    def ack(self, *keys: str) -> None:  # noqa: B027 - only leased backends need it
        """The claims of ``keys`` were processed (the ticker acks a batch in
        one call: one round trip, not one a fire)."""

    def next_due(self) -> float | None:
        """The earliest scheduled deadline, if the backend can tell cheaply."""
        return None

    def claim_due_and_next(self, now: float, limit: int = 200) -> tuple[list[Claim], float | None]:
        """``claim_due``, and when the backend next has something to hand out
        (a deadline or an expiring lease; None: nothing scheduled)."""
        return self.claim_due(now, limit), self.next_due()

    async def claim_due_and_next_async(self, now: float,
                                       limit: int = 200) -> tuple[list[Claim], float | None]:
        """``claim_due_and_next`` from the event loop, never blocking it for long."""
        return self.claim_due_and_next(now, limit)

    # ---- action claims (the socket records them; deadline_fire reads them) ----

    @abstractmethod
    def claim_action(self, room_id: int, session_key: str, version: int,
                     received_ts: float) -> None:
        """Record that ``session_key`` sent an action for ``room_id`` at
        ``version``, read at ``received_ts``; it replaces the session's last."""

    async def claim_action_async(self, room_id: int, session_key: str, version: int,
                                 received_ts: float) -> None:
        """``claim_action`` from the event loop, never blocking it for long."""
        self.claim_action(room_id, session_key, version, received_ts)

    @abstractmethod
    def action_claim(self, room_id: int, session_key: str) -> ActionClaim | None:
        """The session's claim on the room, if one is recorded and not expired."""

    @abstractmethod
    def release_action(self, room_id: int, session_key: str) -> None:
        """The session's action was refused without moving the room: forget it."""

    async def release_action_async(self, room_id: int, session_key: str) -> None:
        self.release_action(room_id, session_key)


class InProcessTimers(TimerBackend):
    """A heap guarded by a lock (services schedule from worker threads)."""

    name = "in-process"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._heap: list[tuple[float, int, str]] = []
        self._current: dict[str, tuple[float, int, int]] = {}  # key -> (when, payload, token)
        self._token = 0
        # (room id, session key) -> (version, received, expires on time.monotonic())
        self._claims: dict[tuple[int, str], tuple[int, float, float]] = {}

    def schedule(self, key, payload, deadline_ts):
        with self._lock:
            self._token += 1
            self._current[key] = (deadline_ts, payload, self._token)
            heapq.heappush(self._heap, (deadline_ts, self._token, key))
        wakeup.armed(deadline_ts)

    def cancel(self, key):
        with self._lock:
            self._current.pop(key, None)

    def claim_due(self, now, limit=200):
        out: list[Claim] = []
        with self._lock:
            while self._heap and self._heap[0][0] <= now and len(out) < limit:
                when, token, key = heapq.heappop(self._heap)
                current = self._current.get(key)
                if current is None or current[2] != token:
                    continue  # replaced or cancelled since
                del self._current[key]
                out.append((key, current[1]))
        return out

    def next_due(self):
        with self._lock:
            while self._heap:
                when, token, key = self._heap[0]
                current = self._current.get(key)
                if current is not None and current[2] == token:
                    return when
                heapq.heappop(self._heap)
        return None

    def claim_action(self, room_id, session_key, version, received_ts):
        expires = time.monotonic() + CLAIM_TTL_SECONDS
        with self._lock:
            if len(self._claims) > 10_000:  # drop the expired ones now and then
                now = time.monotonic()
                self._claims = {k: v for k, v in self._claims.items() if v[2] > now}
            self._claims[(room_id, session_key)] = (version, received_ts, expires)

    def action_claim(self, room_id, session_key):
        with self._lock:
            claim = self._claims.get((room_id, session_key))
        if claim is None or claim[2] <= time.monotonic():
            return None
        return claim[0], claim[1]

    def release_action(self, room_id, session_key):
        with self._lock:
            self._claims.pop((room_id, session_key), None)


# KEYS: 1 due zset, 2 processing zset, 3 payload hash. ARGV: now, lease_until, limit.
_CLAIM_LUA = """
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, member in ipairs(expired) do
  redis.call('ZREM', KEYS[2], member)
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], member)
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, member in ipairs(due) do
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZADD', KEYS[2], ARGV[2], member)
  out[#out + 1] = member
  out[#out + 1] = redis.call('HGET', KEYS[3], member) or '-1'
end
-- When the next deadline or lease falls due ('' when none), so the caller
-- can sleep until then.
local first_due = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local first_lease = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local next = ''
if first_due[2] then next = first_due[2] end
if first_lease[2] and (next == '' or tonumber(first_lease[2]) < tonumber(next)) then
  next = first_lease[2]
end
-- One status line, 'next member payload member payload ...' ('-' for no next):
-- the event loop's pipelined connection (rooms.redis_line) reads only such
-- simple replies. Members are 'g:<id>' and 'r:<id>', never with a space.
if next == '' then next = '-' end
table.insert(out, 1, next)
return {ok = table.concat(out, ' ')}
"""


def _claimed(reply: bytes | str) -> tuple[list[Claim], float | None]:
    """The claim script's status line: the claims, and when to look next."""
    words = (reply.decode() if isinstance(reply, bytes) else reply).split(" ")
    next_at, pairs = words[0], words[1:]
    claims = [(pairs[i], int(pairs[i + 1])) for i in range(0, len(pairs), 2)]
    return claims, None if next_at == "-" else float(next_at)


# KEYS: 1 due zset, 2 payload hash. ARGV: member, deadline, payload.
_SCHEDULE_LUA = """
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""


# A move's broadcast and its next deadline in one command (rooms.publish):
# one write and one reply on the loop, not two, with their tasks.
# KEYS: 1 due zset, 2 payload hash. ARGV: member, deadline, payload, channel, message.
_PUBLISH_AND_SCHEDULE_LUA = """
redis.call('PUBLISH', ARGV[4], ARGV[5])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""


class RedisTimers(TimerBackend):
    name = "redis"
    LEASE_SECONDS = 10.0

    def __init__(self, url: str | None = None, prefix: str | None = None) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # Fail fast when Redis is down: a deadline is armed in the thread that
        # ran the move, and redis-py's default ten retries with backoff held it
        # for seconds. The database sweep (rooms.ticker) fires deadlines while
        # Redis is away; one immediate retry covers a connection Redis dropped.
        self.redis = redis.Redis.from_url(
            url or settings.KHELAGHOR_REDIS_URL, max_connections=50,
            socket_timeout=2, socket_connect_timeout=1, retry=Retry(NoBackoff(), 1),
        )
        self._url = url or settings.KHELAGHOR_REDIS_URL
        prefix = prefix or f"{settings.KHELAGHOR_REDIS_PREFIX}:timers"
        self.claim_prefix = f"{prefix}:act"
        self.due_key = f"{prefix}:due"
        self.processing_key = f"{prefix}:processing"
        self.payload_key = f"{prefix}:payload"
        self._claim = self.redis.register_script(_CLAIM_LUA)
        self._schedule = self.redis.register_script(_SCHEDULE_LUA)
        self._publish_and_schedule = self.redis.register_script(_PUBLISH_AND_SCHEDULE_LUA)
        self._thread = threading.local()

    def schedule(self, key, payload, deadline_ts):
        """Arm ``key``: on a connection this thread keeps, one EVALSHA written
        and read directly. A move arms a deadline, and redis-py's client path
        (pool checkout, retry wrapper, script object, response callbacks) cost
        several times the round trip (docs/performance.md). Anything but the
        plain answer goes through that path after all: a script Redis does
        not know (it restarted) is loaded there, and a kept connection Redis
        closed is replaced there, with its one retry. A timeout is raised at
        once: the caller logs it and the database sweep arms the deadline."""
        arguments = [key, deadline_ts, payload]
        connection = getattr(self._thread, "connection", None)
        if connection is None:
            connection = self._thread.connection = self.redis.connection_pool.make_connection()
        try:
            connection.send_command("EVALSHA", self._schedule.sha, 2, self.due_key,
                                    self.payload_key, *arguments)
            connection.read_response()
        except NoScriptError:
            self._schedule(keys=[self.due_key, self.payload_key], args=arguments)
        except RedisTimeoutError:
            # Redis is slow or hung: fail now, as the client path would after
            # its retry (the database sweep arms what Redis missed).
            connection.disconnect()
            raise
        except RedisConnectionError:
            connection.disconnect()
            self._schedule(keys=[self.due_key, self.payload_key], args=arguments)
        wakeup.armed(deadline_ts)

    arms_on_loop = True

    async def schedule_async(self, key, payload, deadline_ts):
        """Arm ``key`` from the event loop: one EVALSHA on this loop's pipelined
        connection (``rooms.redis_line``), which answers it with an integer.
        In the thread that ran the move, the round trip and redis-py's reading
        of its reply were 2.4 % of a server's CPU (docs/performance.md). A
        script Redis does not know (it restarted) is sent whole with EVAL."""
        await self._line().run_script(self._schedule.sha, _SCHEDULE_LUA, 2, self.due_key,
                                      self.payload_key, key, deadline_ts, payload)
        wakeup.armed(deadline_ts)

    def shares_redis(self, address):
        # The same URL, so the same server and database; a broadcast to
        # another Redis (a shard of the channel layer) is published alone.
        return address == self._url

    async def publish_and_schedule_async(self, line, channel, data, key, payload, deadline_ts):
        """The broadcast and the arm in one script (a script may publish;
        a message reaches subscribers on every database of its Redis). Sent
        twice after a lost connection, the message is one its clients already
        have (rooms.redis_line), and the arm is the same arm."""
        await line.run_script(self._publish_and_schedule.sha, _PUBLISH_AND_SCHEDULE_LUA, 2,
                              self.due_key, self.payload_key, key, deadline_ts, payload,
                              channel, data)
        wakeup.armed(deadline_ts)

    def cancel(self, key):
        pipe = self.redis.pipeline()
        pipe.zrem(self.due_key, key)
        pipe.hdel(self.payload_key, key)
        pipe.execute()

    def claim_due(self, now, limit=200):
        return self.claim_due_and_next(now, limit)[0]

    def claim_due_and_next(self, now, limit=200):
        return _claimed(self._claim(
            keys=[self.due_key, self.processing_key, self.payload_key],
            args=[now, now + self.LEASE_SECONDS, limit],
        ))

    async def claim_due_and_next_async(self, now, limit=200):
        """The claim from the event loop, on its pipelined connection: the
        claim loop runs up to twenty times a second, and a trip to a thread
        for redis-py's call cost more CPU than the script (docs/performance.md,
        "Round 13"). A claim whose connection closes before its reply is sent
        once more, as redis-py's one retry did: whatever the first claimed
        comes back after its lease, or from the database sweep sooner."""
        return _claimed(await self._line().run_script(
            self._claim.sha, _CLAIM_LUA, 3, self.due_key, self.processing_key, self.payload_key,
            now, now + self.LEASE_SECONDS, limit))

    def ack(self, *keys):
        if keys:
            self.redis.zrem(self.processing_key, *keys)

    def next_due(self):
        first = self.redis.zrange(self.due_key, 0, 0, withscores=True)
        return first[0][1] if first else None

    def clear(self) -> None:
        """Tests only: forget everything under this prefix."""
        self.redis.delete(self.due_key, self.processing_key, self.payload_key)

    def _claim_key(self, room_id: int, session_key: str) -> str:
        return f"{self.claim_prefix}:{room_id}:{session_key}"

    def _line(self) -> RedisLine:
        """This event loop's pipelined connection for action claims: a claim
        is one command a move, and redis-py's asyncio client cost several
        times its round trip (rooms.redis_line)."""
        return line_for(self._url)

    def claim_action(self, room_id, session_key, version, received_ts):
        self.redis.set(self._claim_key(room_id, session_key), f"{version}:{received_ts!r}",
                       ex=CLAIM_TTL_SECONDS)

    async def claim_action_async(self, room_id, session_key, version, received_ts):
        await self._line().execute("SET", self._claim_key(room_id, session_key),
                                   f"{version}:{received_ts!r}", "EX", CLAIM_TTL_SECONDS)

    def action_claim(self, room_id, session_key):
        raw = self.redis.get(self._claim_key(room_id, session_key))
        if raw is None:
            return None
        version, _, received = raw.decode().partition(":")
        return int(version), float(received)

    def release_action(self, room_id, session_key):
        self.redis.delete(self._claim_key(room_id, session_key))

    async def release_action_async(self, room_id, session_key):
        await self._line().execute("DEL", self._claim_key(room_id, session_key))


class Wakeup:
    """When this process's claim loop (rooms.ticker) means to look at the
    timers next, and the way to wake it sooner: a deadline armed here before
    that time wakes it. The loop sleeps until the backend's next deadline
    instead of polling twenty times a second (docs/performance.md); a deadline
    another process arms is that process's to wake for, and the loop never
    sleeps longer than ``rooms.ticker.MAX_SLEEP_SECONDS`` in case it died."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.event: asyncio.Event | None = None
        self.at = float("-inf")  # while claiming: never signal, the claim looks anyway
        self.earliest_armed = float("inf")  # armed here since the last claim began
        # Deadlines this process fires itself (``fire_here``): (when, key, payload).
        self._here: list[tuple[float, str, int]] = []
        self._here_lock = threading.Lock()

    def fire_here(self, key: str, payload: int, deadline_ts: float) -> None:
        """Any thread: this process's claim loop fires ``key`` at ``deadline_ts``
        itself, without claiming it from the backend (rooms.publish.arm_game:
        a computer's move in the process that holds its room's rows)."""
        with self._here_lock:
            heapq.heappush(self._here, (deadline_ts, key, payload))
        self.armed(deadline_ts)

    def due_here(self, now: float) -> list[tuple[str, int]]:
        """The deadlines to fire here that are due at ``now``, in order."""
        due = []
        with self._here_lock:
            while self._here and self._here[0][0] <= now:
                _, key, payload = heapq.heappop(self._here)
                due.append((key, payload))
        return due

    def next_here(self) -> float | None:
        with self._here_lock:
            return self._here[0][0] if self._here else None

    def armed(self, deadline_ts: float) -> None:
        """Any thread: a deadline was scheduled here."""
        if deadline_ts < self.earliest_armed:
            self.earliest_armed = deadline_ts
        loop, event = self.loop, self.event
        if deadline_ts < self.at and loop is not None and event is not None:
            self.at = deadline_ts  # one wake-up is enough
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop has closed
                pass


wakeup = Wakeup()

_backend: TimerBackend | None = None
_backend_lock = threading.Lock()


def get_timer_backend() -> TimerBackend:
    """This process's backend, named by settings.KHELAGHOR_TIMER_BACKEND."""
    global _backend
    with _backend_lock:
        if _backend is None:
            _backend = import_string(settings.KHELAGHOR_TIMER_BACKEND)()
        return _backend


def reset_timer_backend() -> None:
    global _backend
    with _backend_lock:
        _backend = None
