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
"""

from __future__ import annotations

import heapq
import threading
from abc import ABC, abstractmethod

from django.conf import settings
from django.utils.module_loading import import_string

Claim = tuple[str, int]


class TimerBackend(ABC):
    name = "timers"

    @abstractmethod
    def schedule(self, key: str, payload: int, deadline_ts: float) -> None:
        """Fire ``key`` with ``payload`` at ``deadline_ts`` (Unix seconds),
        replacing whatever was scheduled for ``key``."""

    @abstractmethod
    def cancel(self, key: str) -> None:
        """Forget ``key``'s deadline, if any."""

    @abstractmethod
    def claim_due(self, now: float, limit: int = 200) -> list[Claim]:
        """Take every key due at ``now`` (at most ``limit``) with its payload.
        A claim not acked within the lease is handed out again."""

    def ack(self, key: str) -> None:  # noqa: B027 - only leased backends need it
        """The claim of ``key`` was processed."""

    def next_due(self) -> float | None:
        """The earliest scheduled deadline, if the backend can tell cheaply."""
        return None


class InProcessTimers(TimerBackend):
    """A heap guarded by a lock (services schedule from worker threads)."""

    name = "in-process"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._heap: list[tuple[float, int, str]] = []
        self._current: dict[str, tuple[float, int, int]] = {}  # key -> (when, payload, token)
        self._token = 0

    def schedule(self, key, payload, deadline_ts):
        with self._lock:
            self._token += 1
            self._current[key] = (deadline_ts, payload, self._token)
            heapq.heappush(self._heap, (deadline_ts, self._token, key))

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
return out
"""

# KEYS: 1 due zset, 3 payload hash. ARGV: member, deadline, payload.
_SCHEDULE_LUA = """
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""


class RedisTimers(TimerBackend):
    name = "redis"
    LEASE_SECONDS = 10.0

    def __init__(self, url: str | None = None, prefix: str = "khelaghor:timers") -> None:
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
        self.due_key = f"{prefix}:due"
        self.processing_key = f"{prefix}:processing"
        self.payload_key = f"{prefix}:payload"
        self._claim = self.redis.register_script(_CLAIM_LUA)
        self._schedule = self.redis.register_script(_SCHEDULE_LUA)

    def schedule(self, key, payload, deadline_ts):
        self._schedule(keys=[self.due_key, self.payload_key], args=[key, deadline_ts, payload])

    def cancel(self, key):
        pipe = self.redis.pipeline()
        pipe.zrem(self.due_key, key)
        pipe.hdel(self.payload_key, key)
        pipe.execute()

    def claim_due(self, now, limit=200):
        raw = self._claim(
            keys=[self.due_key, self.processing_key, self.payload_key],
            args=[now, now + self.LEASE_SECONDS, limit],
        )
        return [(raw[i].decode(), int(raw[i + 1])) for i in range(0, len(raw), 2)]

    def ack(self, key):
        self.redis.zrem(self.processing_key, key)

    def next_due(self):
        first = self.redis.zrange(self.due_key, 0, 0, withscores=True)
        return first[0][1] if first else None

    def clear(self) -> None:
        """Tests only: forget everything under this prefix."""
        self.redis.delete(self.due_key, self.processing_key, self.payload_key)


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
