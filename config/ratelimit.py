"""Counting failures per key in a time window (the cache is the store: Redis
when REDIS_URL is set, so every process counts together).

Used for guessing room codes (rooms.guessing) and failed sign-ins
(accounts_optional.forms). A window opens with a key's first failure and lasts
``seconds``; once the key has ``limit`` failures in it, the key is refused until
the window closes, and ``retry_after`` says how long that is, so a refusal can
tell the person when to try again.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cache as once

from django.core.cache import caches


@once
def _store():
    """One cache client for the whole process. ``django.core.cache.cache``
    keeps a client per async context, so every socket that looked up its room
    kept its own Redis client, pool and connection for as long as it stayed
    open (about 10 KB of Python per socket in bench/bench_memory.py, and a
    Redis connection each). Django's Redis and local-memory caches are safe to
    share between threads."""
    return caches.create_connection("default")


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
        return _store().get(self._key(key)) or 0

    def retry_after(self, *keys: str) -> int:
        """Whole seconds until every given key that reached the limit is free
        again; 0 when none has."""
        wait = 0
        for key in keys:
            if self.failures(key) < self.limit:
                continue
            opened = _store().get(self._opened_key(key))
            left = self.seconds if opened is None else opened + self.seconds - time.time()
            wait = max(wait, min(self.seconds, max(1, math.ceil(left))))
        return wait

    def exceeded(self, *keys: str) -> bool:
        return self.retry_after(*keys) > 0

    def count(self, *keys: str) -> None:
        for key in keys:
            cache, counter = _store(), self._key(key)
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
