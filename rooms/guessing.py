"""Room codes are short, so guessing them is rate-limited.

A session or an address that asks for MISSES_ALLOWED unknown codes within
WINDOW_SECONDS is refused until the window passes, over HTTP (/join/, HTTP 429)
and over the room socket alike. Counters live in the cache (Redis when
REDIS_URL is set, so every process counts together).
"""

from __future__ import annotations

from django.core.cache import cache

MISSES_ALLOWED = 20
WINDOW_SECONDS = 600


def _keys(session_key: str, address: str) -> list[str]:
    return [f"code-miss:s:{session_key}", f"code-miss:a:{address}"]


def may_guess(session_key: str, address: str) -> bool:
    return all((cache.get(k) or 0) < MISSES_ALLOWED for k in _keys(session_key, address))


def count_miss(session_key: str, address: str) -> None:
    for key in _keys(session_key, address):
        if not cache.add(key, 1, WINDOW_SECONDS):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.set(key, 1, WINDOW_SECONDS)
