"""Moderation: bans, player reports and the moderator's actions, as services.

Every moderator action runs like a room command (``rooms.services``): inside one
transaction holding the room's lock, it changes the seats, appends a table event
to the move log when a game is being played, and leaves through the core's
``commit`` (``rooms.services.core``), so every connection hears of it at once
through the normal publish path. Each action also writes a ``ModerationLog``
row with who, what and why, in the same transaction: no action without its log line, and no log line
for an action that was rolled back.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext

from config.ratelimit import counters
from games.registry import declaration

from . import codes, errors, rows, selectors
from .models import Ban, Game, ModerationLog, Report, Room, Seat
from .services import core, upkeep

REPORTS_PER_WINDOW = 5  # reports one session may send per window
REPORT_WINDOW = 60 * 60  # seconds
NOTE_MAX = 300

BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


class ModerationError(errors.RoomError):
    code = "moderation"


def _log(moderator, action: str, room: Room | None, target: str, reason: str, *,
         session_key: str = "", user_id: int | None = None) -> ModerationLog:
    """The log line; ``session_key`` and ``user_id`` name the player it was about."""
    return ModerationLog.objects.create(
        moderator=moderator if getattr(moderator, "pk", None) else None,
        action=action, room=room, target=target[:200], reason=reason[:200],
        session_key=session_key, user_id=user_id,
    )


def _require_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ModerationError("A moderator action needs a reason")
    return reason[:200]


def _locked_human_seat(room_id: int, index: int) -> tuple[Room, list[Seat], Seat]:
    """The open room, locked, with its seats and the human in seat ``index``."""
    room = core.locked(room_id)
    core.require_open(room)
    seats = core.seats_of(room)
    if not isinstance(index, int) or not 0 <= index < len(seats):
        raise ModerationError("There is no such seat")
    if seats[index].kind != Seat.Kind.HUMAN:
        raise ModerationError("That seat has no human player")
    return room, seats, seats[index]


def _describe_seat(seat: Seat) -> str:
    who = f"seat {seat.index + 1} '{seat.name}'"
    if seat.session_key:
        who += f" session {seat.session_key[:8]}…"
    if seat.user_id:
        who += f" user #{seat.user_id}"
    return who


# ---- moderator actions ---------------------------------------------------------


@transaction.atomic
def moderator_close(room_id: int, *, moderator, reason: str) -> bool:
    """Close the room; a game in play ends as aborted and the players see why."""
    reason = _require_reason(reason)
    change = upkeep.room_close(room_id, reason=reason)
    if change is None:
        return False
    _log(moderator, ModerationLog.Action.CLOSE, Room.objects.get(id=room_id), "room", reason)
    return True


@transaction.atomic
def seat_remove(room_id: int, seat_index: int, *, moderator, reason: str) -> dict[str, Any]:
    """Take a player out of their seat. Mid-game a computer plays the seat to the
    end (kind ``bot``, the ``standard`` player); in the lobby the seat opens."""
    reason = _require_reason(reason)
    room, seats, seat = _locked_human_seat(room_id, seat_index)
    target = _describe_seat(seat)
    player = {"session_key": seat.session_key, "user_id": seat.user_id}  # the seat forgets
    event = {"type": "removed", "seat": seat.index}
    if room.status == Room.Status.PLAYING:
        core.seat_bot(seat, declaration(room.game).standard_bot)
        seat.user_id = None
        seat.held = False
        seat.connections = 0
        seat.client_seed = ""
        seat.consecutive_timeouts = 0
        rows.save_fields(seat, ["user", "held", "connections", "client_seed",
                                "consecutive_timeouts"])
        game_row = selectors.current_game(room)
        core.log_table_event(game_row, {**event, "reason": "moderator"})
        core.rearm(room, game_row, seats)
    else:
        core.open_seat(seat)
    _log(moderator, ModerationLog.Action.REMOVE, room, target, reason, **player)
    core.commit(room, core.Change(room.id, [event]))
    return event


def neutral_name(index: int) -> str:
    """"খেলোয়াড় 3": the site's language, so every table shows the same name."""
    with translation.override(settings.LANGUAGE_CODE):
        name = gettext("Player %(n)s") % {"n": index + 1}
    if settings.LANGUAGE_CODE == "bn":
        name = name.translate(BN_DIGITS)
    return name


@transaction.atomic
def seat_rename(room_id: int, seat_index: int, *, moderator, reason: str) -> dict[str, Any]:
    """Replace an abusive nickname by a neutral one, at the table, in the game's
    record and in the player's session (they must choose a new nickname)."""
    reason = _require_reason(reason)
    room, seats, seat = _locked_human_seat(room_id, seat_index)
    target = _describe_seat(seat)
    seat.name = neutral_name(seat.index)
    rows.save_fields(seat, ["name"])
    game_row = selectors.current_game(room)
    if game_row is not None:
        _rename_in_record(game_row, seat.index, seat.name)
    # A player on someone else's phone (pass and play) has no session of
    # their own: the phone's owner keeps their nickname.
    if seat.session_key and not seat.on_device:
        _forget_nickname(seat.session_key)
    _log(moderator, ModerationLog.Action.RENAME, room, target, reason,
         session_key=seat.session_key, user_id=seat.user_id)
    event = {"type": "renamed", "seat": seat.index}
    core.commit(room, core.Change(room.id, [event]))
    return event


def _rename_in_record(game_row: Game, index: int, name: str) -> None:
    seats = list(game_row.seats)
    if index < len(seats) and seats[index].get("kind") == "human":
        seats[index] = {**seats[index], "name": name}
        game_row.seats = seats
        rows.save_fields(game_row, ["seats"])


def _forget_nickname(session_key: str) -> None:
    store = SessionStore(session_key=session_key)
    if "nickname" in store:  # a missing session loads as empty: nothing to forget
        del store["nickname"]
        store.save()


@transaction.atomic
def ban_create(*, moderator, reason: str, session_key: str = "", user=None,
               room: Room | None = None) -> Ban:
    """Ban a guest session and/or an account from creating and joining rooms."""
    reason = _require_reason(reason)
    if not session_key and user is None:
        raise ModerationError("A ban needs a session or an account")
    ban = Ban.objects.create(session_key=session_key, user=user, reason=reason,
                             created_by=moderator if getattr(moderator, "pk", None) else None)
    target = f"session {session_key[:8]}…" if session_key else ""
    if user is not None:
        target = f"{target} user {user}".strip()
    _log(moderator, ModerationLog.Action.BAN, room, target, reason)
    return ban


@transaction.atomic
def seat_ban(room_id: int, seat_index: int, *, moderator, reason: str) -> Ban:
    """Ban the seat's player (session and account) and take them out of the seat."""
    reason = _require_reason(reason)
    room = Room.objects.get(id=room_id)
    seat = room.seats.get(index=seat_index)
    if seat.kind != Seat.Kind.HUMAN or not seat.session_key:
        raise ModerationError("That seat has no human player. To ban a player already "
                              "removed, select their removal in the moderation log")
    ban = ban_create(moderator=moderator, reason=reason, session_key=seat.session_key,
                     user=seat.user, room=room)
    if room.status != Room.Status.CLOSED:
        seat_remove(room_id, seat_index, moderator=moderator, reason=reason)
    return ban


@transaction.atomic
def ban_logged_player(entry: ModerationLog, *, moderator, reason: str) -> Ban:
    """Ban the player a logged action was about (say, a removal, after which
    their seat no longer knows them)."""
    if not entry.session_key and entry.user_id is None:
        raise ModerationError("This log entry names no player")
    if Ban.is_banned(session_key=entry.session_key, user_id=entry.user_id):
        raise ModerationError("That player is banned already")
    return ban_create(moderator=moderator, reason=reason, session_key=entry.session_key,
                      user=entry.user, room=entry.room)


@transaction.atomic
def ban_lift(ban: Ban, *, moderator, reason: str) -> None:
    reason = _require_reason(reason)
    ban.active = False
    ban.save(update_fields=["active"])
    _log(moderator, ModerationLog.Action.UNBAN, None, str(ban), reason)


# ---- reports -------------------------------------------------------------------


def _report_allowed(session_key: str) -> bool:
    key = f"report:s:{session_key}"
    cache = counters()
    if cache.add(key, 1, REPORT_WINDOW):
        return True
    try:
        count = cache.incr(key)
    except ValueError:
        cache.set(key, 1, REPORT_WINDOW)
        return True
    return count <= REPORTS_PER_WINDOW


def report_create(*, code: str, actor, reason: str, note: str = "",
                  seat: int | None = None) -> Report:
    """A player's report about a room (open or just closed). Rate-limited per session."""
    if reason not in Report.Reason.values:
        raise errors.BadMessage("Choose a reason for the report")
    note = (note or "").strip()
    if len(note) > NOTE_MAX:
        raise errors.BadMessage("A note has at most {count} characters", count=NOTE_MAX)
    room = Room.objects.filter(code=codes.normalize(code)).order_by("-created_at").first()
    if room is None:
        raise errors.NotFound("There is no open room with that code")
    if seat is not None and not 0 <= seat < room.seats.count():
        raise errors.BadMessage("There is no such seat")
    if not _report_allowed(actor.session_key):
        raise RateLimited("You have sent many reports; please wait a while")
    return Report.objects.create(
        room=room, game=selectors.current_game(room), seat=seat, reason=reason, note=note,
        session_key=actor.session_key, user_id=actor.user_id,
    )


class RateLimited(errors.RoomError):
    code = "rate_limited"


@transaction.atomic
def report_resolve(report: Report, *, moderator, reason: str = "resolved") -> None:
    if report.resolved:
        return
    report.resolved = True
    report.resolved_by = moderator if getattr(moderator, "pk", None) else None
    report.resolved_at = timezone.now()
    report.save(update_fields=["resolved", "resolved_by", "resolved_at"])
    _log(moderator, ModerationLog.Action.RESOLVE, report.room, f"report #{report.pk}",
         reason or "resolved")
