"""Room codes are short, so guessing them is limited, the same way at every door
that takes a code: /join/, /r/CODE/, /api/rooms/CODE/, POST /r/CODE/report/ and
the room socket all find their room through ``look_up``.

Many players share one address: in Bangladesh most phones reach us through
carrier NAT, thousands behind one address. So the limit is per session first,
and one player's guessing never locks out the others:

- A session that misses SESSION_MISSES codes within WINDOW_SECONDS is refused
  every code until its window closes, except rooms it sits in (a seated player
  always gets back to their own table). Refusing hits too is what makes this a
  limit: if only misses were refused, "refused" would mean "no such room" and
  the guessing could go on as fast as before.
- An address has a far higher limit, ADDRESS_MISSES, and it only turns further
  misses into refusals: a code that exists is never refused because someone
  else at the same address guessed. (So a guesser that starts a fresh session
  for every guess is only slowed, not stopped; telling it from a new neighbour
  would need more than an address.)

A refusal is ``TooManyGuesses``, which carries ``retry_after`` in seconds: HTTP
doors answer 429 with a Retry-After header, the socket a ``rate_limited`` error
with ``retry_after``, and both say in words when to try again.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import ngettext

from config.ratelimit import FailureWindow, minutes_to_wait

from . import codes, errors, rows
from .models import Room, Seat

SESSION_MISSES = 20
ADDRESS_MISSES = 400
WINDOW_SECONDS = 600
_session_misses = FailureWindow("code-miss", SESSION_MISSES, WINDOW_SECONDS)
_address_misses = FailureWindow("code-miss-address", ADDRESS_MISSES, WINDOW_SECONDS)


class TooManyGuesses(errors.RoomError):
    code = "rate_limited"

    def __init__(self, retry_after: int) -> None:
        super().__init__("Too many unknown room codes; wait a few minutes")
        self.retry_after = retry_after


def refusal_text(retry_after: int) -> str:
    """What a refused guesser reads, in the active language."""
    minutes, shown = minutes_to_wait(retry_after)
    return ngettext(
        "Too many unknown room codes. Please try again in %(minutes)s minute.",
        "Too many unknown room codes. Please try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": shown}


def open_room(code: str) -> Room | None:
    """The open room with this code, the room most doors look for."""
    return rows.open_room(code)


def sits_in(room: Room, session_key: str) -> bool:
    return Seat.objects.filter(
        room=room, kind=Seat.Kind.HUMAN, session_key=session_key
    ).exists()


def look_up(code: str, session_key: str, address: str,
            find: Callable[[str], Room | None] = open_room) -> Room:
    """The room a door asked for by code, counted as a guess.

    ``find`` says what a door counts as existing (an open room for most; the
    report door accepts a room that has just closed). Raises ``TooManyGuesses``
    or ``errors.NotFound``; a miss is counted for the session and the address.
    """
    normal = codes.normalize(code)
    room = find(normal) if normal else None
    session_wait = _session_misses.retry_after(f"s:{session_key}")
    if session_wait and not (room is not None and sits_in(room, session_key)):
        raise TooManyGuesses(session_wait)
    if room is not None:
        return room
    address_wait = _address_misses.retry_after(f"a:{address}")
    _session_misses.count(f"s:{session_key}")
    _address_misses.count(f"a:{address}")
    if address_wait:
        raise TooManyGuesses(address_wait)
    raise errors.NotFound("There is no open room with that code")
