"""The rooms layer's clock, in one place so tests can move time instead of waiting."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

# What django.utils.timezone.now() returns with USE_TZ (config.settings sets it),
# without reading the setting through its lazy wrapper on every call: a move
# reads the clock a dozen times, and that read was 1.6 % of a loaded
# server's samples (docs/performance.md, round 12).
_offset = timedelta(0)
_offset_seconds = 0.0


def now() -> datetime:
    return datetime.now(UTC) + _offset


def timestamp() -> float:
    return time.time() + _offset_seconds


def advance(seconds: float) -> None:
    """Tests only: move this process's clock forward."""
    global _offset, _offset_seconds
    _offset_seconds += seconds
    _offset = timedelta(seconds=_offset_seconds)


def reset() -> None:
    global _offset, _offset_seconds
    _offset_seconds = 0.0
    _offset = timedelta(0)
