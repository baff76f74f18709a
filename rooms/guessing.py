"""Room codes are short, so guessing them is rate-limited.

A session or an address that asks for MISSES_ALLOWED unknown codes within
WINDOW_SECONDS is refused until the window passes, over HTTP (/join/, HTTP 429)
and over the room socket alike.
"""

from __future__ import annotations

from config.ratelimit import FailureWindow

MISSES_ALLOWED = 20
WINDOW_SECONDS = 600
_misses = FailureWindow("code-miss", MISSES_ALLOWED, WINDOW_SECONDS)


def may_guess(session_key: str, address: str) -> bool:
    return not _misses.exceeded(f"s:{session_key}", f"a:{address}")


def count_miss(session_key: str, address: str) -> None:
    _misses.count(f"s:{session_key}", f"a:{address}")
