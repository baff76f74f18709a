"""Counting failures per key in a time window (the cache is the store: Redis
when REDIS_URL is set, so every process counts together).

Used for guessing room codes (rooms.guessing) and failed sign-ins
(accounts_optional.forms). A window opens with a key's first failure and lasts
``seconds``; once the key has ``limit`` failures in it, the key is refused until
the window closes, and ``retry_after`` says how long that is, so a refusal can
tell the person when to try again.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from functools import cache as once
from time import monotonic

from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache

from config.cache import REDIS_AWAY

log = logging.getLogger(__name__)

# After a failure, how long the counters stay in this process before Redis is
# tried again: a restart costs each process one failed call every few seconds,
# not one per request.
TRY_SHARED_AGAIN_AFTER = 5.0


class Counters:
    """The cache the windows count in: the shared one (Redis, every process
    counting together), or while it cannot be reached, a memory of this
    process's own, so that the limits still hold, per process, and the doors
    that check them still open. Every room page and share link checks one:
    while Redis restarted they answered 500, and a table could be reached only
    by the sockets already open (tests/integration/test_outage_sockets.py).
    When Redis answers again the shared counts resume; what was counted here
    meanwhile is dropped."""

    def __init__(self, shared) -> None:
        self.shared = shared
        self.local = LocMemCache("khelaghor-counters-while-shared-is-away", {})
        self.shared_away_until = 0.0

    def _call(self, name: str, *args):
        if monotonic() >= self.shared_away_until:
            try:
                return getattr(self.shared, name)(*args)
            except REDIS_AWAY as exc:
                self.shared_away_until = monotonic() + TRY_SHARED_AGAIN_AFTER
                log.warning("rate limits count in this process for %.0f s: the shared "
                            "cache is away (%s)", TRY_SHARED_AGAIN_AFTER, exc)
        return getattr(self.local, name)(*args)

    def get(self, key: str):
        return self._call("get", key)

    def add(self, key: str, value, timeout: float) -> bool:
        return self._call("add", key, value, timeout)

    def set(self, key: str, value, timeout: float) -> None:
        self._call("set", key, value, timeout)

    def incr(self, key: str) -> int:
        """Raises ValueError for a key that is not there, as Django's caches do."""
        return self._call("incr", key)


@once
def counters() -> Counters:
    """One cache client for the whole process. ``django.core.cache.cache``
    keeps a client per async context, so every socket that looked up its room
    kept its own Redis client, pool and connection for as long as it stayed
    open (about 10 KB of Python per socket in bench/bench_memory.py, and a
    Redis connection each). Django's Redis and local-memory caches are safe to
    share between threads."""
    return Counters(caches.create_connection("default"))


@dataclass(frozen=True)
class FailureWindow:
    name: str
    limit: int
    seconds: int

    def _key(self, key: str) -> str:
        return f"{self.name}:{key}"

    def _opened_key(self, key: str) -> str:
        return f"{self.name}:opened:{key}"

    def failures(self, key: str) -> int:
        return counters().get(self._key(key)) or 0

    def retry_after(self, *keys: str) -> int:
        """Whole seconds until every given key that reached the limit is free
        again; 0 when none has."""
        wait = 0
        for key in keys:
            if self.failures(key) < self.limit:
                continue
            opened = counters().get(self._opened_key(key))
            left = self.seconds if opened is None else opened + self.seconds - time.time()
            wait = max(wait, min(self.seconds, max(1, math.ceil(left))))
        return wait

    def exceeded(self, *keys: str) -> bool:
        return self.retry_after(*keys) > 0

    def count(self, *keys: str) -> None:
        for key in keys:
            cache, counter = counters(), self._key(key)
            if cache.add(counter, 1, self.seconds):
                # The window's start, so a refusal can say when it ends. Written
                # after the counter: a reader between the two assumes a full window.
                cache.set(self._opened_key(key), time.time(), self.seconds)
                continue
            try:
                cache.incr(counter)
            except ValueError:  # expired between add and incr: a new window
                cache.set(counter, 1, self.seconds)
                cache.set(self._opened_key(key), time.time(), self.seconds)


_BENGALI_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def minutes_to_wait(seconds: int) -> tuple[int, str]:
    """Whole minutes (rounded up, at least one) for a refusal's text, as a
    number for ngettext and as shown in the active language's digits."""
    from django.utils.translation import get_language

    minutes = max(1, math.ceil(seconds / 60))
    shown = str(minutes)
    if (get_language() or "").startswith("bn"):
        shown = shown.translate(_BENGALI_DIGITS)
    return minutes, shown
