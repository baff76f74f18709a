"""The rooms layer's clock, in one place so tests can move time instead of waiting."""

from __future__ import annotations

from django.utils import timezone

_offset_seconds = 0.0


def now():
    return timezone.now() + timezone.timedelta(seconds=_offset_seconds)


def timestamp() -> float:
    return now().timestamp()


def advance(seconds: float) -> None:
    """Tests only: move this process's clock forward."""
    global _offset_seconds
    _offset_seconds += seconds


def reset() -> None:
    global _offset_seconds
    _offset_seconds = 0.0
