"""The rooms layer's errors: each has a protocol ``code`` and a readable message.

Consumers and views turn any ``RoomError`` into
``{"type": "error", "code": ..., "message": ...}`` in one place.
"""

from __future__ import annotations


class RoomError(Exception):
    code = "room_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadMessage(RoomError):
    code = "bad_message"


class TooLarge(RoomError):
    """A frame over the size limit; the connection is closed after it."""

    code = "too_large"


class RateLimited(RoomError):
    """Too many messages (or reactions, or guessed codes) too fast."""

    code = "rate_limited"


class NotFound(RoomError):
    code = "not_found"


class StaleVersion(RoomError):
    code = "stale_version"


class NotYourTurn(RoomError):
    code = "not_your_turn"


class IllegalAction(RoomError):
    code = "illegal_action"


class NotSeated(RoomError):
    code = "not_seated"


class NotHost(RoomError):
    code = "not_host"


class RoomFull(RoomError):
    code = "room_full"


class SeatTaken(RoomError):
    code = "seat_taken"


class WrongStatus(RoomError):
    code = "wrong_status"


class RoomClosed(RoomError):
    code = "room_closed"


class Banned(RoomError):
    code = "banned"
