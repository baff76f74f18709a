"""Counting failures per key in a time window (the cache is the store: Redis
when REDIS_URL is set, so every process counts together).

Used for guessing room codes (rooms.guessing) and failed sign-ins
(accounts_optional.forms): each counts per session or username *and* per
address, and refuses once any key reached the limit within the window.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache


@dataclass(frozen=True)
class FailureWindow:
    name: str
    limit: int
    seconds: int

    def _key(self, key: str) -> str:
        return f"{self.name}:{key}"

    def exceeded(self, *keys: str) -> bool:
        return any((cache.get(self._key(k)) or 0) >= self.limit for k in keys)

    def count(self, *keys: str) -> None:
        for key in map(self._key, keys):
            if not cache.add(key, 1, self.seconds):
                try:
                    cache.incr(key)
                except ValueError:  # expired between add and incr
                    cache.set(key, 1, self.seconds)
