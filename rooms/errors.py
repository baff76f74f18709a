"""The rooms layer's errors: each has a protocol ``code`` and a readable message.

Consumers and views turn any ``RoomError`` into
``{"type": "error", "code": ..., "message": ...}`` in one place.

A message is an English catalogue string (its msgid) with ``{placeholders}``
filled from keyword arguments: ``errors.BadMessage("A note has at most {count}
characters", count=500)``. ``message`` is the English text (logs, tests,
admin); ``localised()`` is the text in the active language, numbers in its
digits, which the consumer calls inside ``translation.override`` with the
socket's language. ``make messages`` extracts the first argument of every
error class (rooms/management/commands/makemessages.py), so the literal must be
a plain string, never an f-string (tests/test_i18n.py checks both).
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, gettext_noop

from config.digits import to_local_digits
from games import base as engine_base

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


class Text(str):
    """A placeholder value that is itself a catalogue string (a game's title,
    "another player"): translated too when the message is."""


def local_digits(text: str) -> str:
    """``text`` with Bengali digits when the active language is Bengali."""
    return to_local_digits(text)


def fill(template: str, params: dict[str, Any], translate: bool = False) -> str:
    """``template`` with each ``{key}`` replaced by its value; with
    ``translate``, numbers in the active language's digits and Text values
    translated. Unknown keys stay as they are."""

    def value(match: re.Match) -> str:
        key = match.group(1)
        if key not in params:
            return match.group(0)
        item = params[key]
        if not translate:
            return str(item)
        if isinstance(item, Text):
            return gettext(item)
        if isinstance(item, int | float) and not isinstance(item, bool):
            return local_digits(str(item))
        if isinstance(item, list | tuple):  # a record's placings: "০, ১", not "[0, 1]"
            return ", ".join(local_digits(str(part)) for part in item)
        return str(item)

    return _PLACEHOLDER.sub(value, template)


class RoomError(Exception):
    code = "room_error"

    def __init__(self, message: str, **params: Any) -> None:
        self.template = message
        self.params = params
        self.message = fill(message, params)
        super().__init__(self.message)

    def localised(self) -> str:
        """The message in the active language (translation.override around it)."""
        return localised(self)


def localised(exc: Any) -> str:
    """Any error with a ``template`` and ``params`` (a RoomError, an engine's
    GameError, a record's RecordError) in the active language."""
    if not exc.template:
        return ""
    return fill(gettext(exc.template), exc.params, translate=True)


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


class Unavailable(RoomError):
    """The server could not reach its database (a restart, a failover):
    nothing was done, and the same message may be sent again in a moment."""

    code = "unavailable"


def error_class_names() -> list[str]:
    """Every RoomError class name: the keywords ``make messages`` extracts."""
    found, todo = [], [RoomError]
    while todo:
        cls = todo.pop()
        found.append(cls.__name__)
        todo.extend(cls.__subclasses__())
    return sorted(set(found))


# Filled in for an engine's ``{name}`` when the seat has no name to give.
ANOTHER_PLAYER = gettext_noop("another player")


def from_engine(exc: Any, names: list[str] | None = None) -> RoomError:
    """An engine's GameError as the room error a player reads: its template
    and values kept apart (so each socket gets it in its own language), the
    seat's ``{name}`` given by the table, a game's title translated."""
    params = dict(exc.params)
    if "{name}" in exc.template:
        seat = exc.seat
        if names is not None and isinstance(seat, int) and 0 <= seat < len(names):
            params["name"] = names[seat]
        else:
            params["name"] = Text(ANOTHER_PLAYER)
    if isinstance(params.get("game"), str):
        params["game"] = Text(params["game"])
    if isinstance(exc, engine_base.NotYourTurn):
        return NotYourTurn(exc.template, **params)
    if isinstance(exc, engine_base.IllegalAction):
        return IllegalAction(exc.template, **params)
    return BadMessage(exc.template, **params)
