"""Reads of rooms and games, in one place (HackSoft's selectors): a room by its
code, its current game, a game's record, what each connection sees of a room,
a player's games and the staff dashboard's numbers. The one place that turns
rooms, seats and game state into protocol messages.
Hidden information leaves only through the engine's ``view_for`` and
``event_for`` for the connection's own seat.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q, Sum
from django.urls import reverse
from django.utils import timezone

from accounts_optional.models import RatingChange
from games.record import build_record
from games.registry import declaration, get_game

from . import clock, codes, errors
from .models import Game, MoveLog, Room, Seat
from .state import load_state

# A game that is over: played to the end, or stopped.
OVER = (Game.Status.FINISHED, Game.Status.ABORTED)


def owner_tag(session_key: str) -> str:
    """Identifies a seat's owner in group messages without the session key."""
    return hashlib.sha256(f"seat-owner:{session_key}".encode()).hexdigest()[:20]


def room_json(room: Room, seats: list[Seat]) -> dict[str, Any]:
    return {
        "code": room.code,
        "game": room.game,
        "status": room.status,
        "pace": room.pace,
        "visibility": room.visibility,
        "turn_seconds": room.turn_seconds,
        "options": room.options,
        "closed_reason": room.closed_reason,
        "next_seed_hash": room.next_server_seed_hash,
        "autostart_at": room.autostart_at.timestamp() if room.autostart_at else None,
        "seats": [seat_json(s) for s in seats],
    }


def seat_json(seat: Seat) -> dict[str, Any]:
    if seat.kind == Seat.Kind.OPEN:
        return {"seat": seat.index, "name": None, "kind": "open"}
    shown = {
        "seat": seat.index,
        "name": seat.name,
        "kind": seat.kind,
        "bot": seat.bot_kind or None,
        "held": seat.held,
        "on_device": seat.on_device,
        "connected": seat.kind == Seat.Kind.BOT or seat.connected,
        "timeouts": seat.consecutive_timeouts,
    }
    if seat.held:
        # Only on a held seat: the count of the hold going on. Its player's
        # page keeps the last one it saw to say it once the seat is theirs again.
        shown["held_moves"] = seat.held_moves
    return shown


def game_json(game_row: Game | None, state: Any, seat: int | None,
              ratings: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The game part of a snapshot or update; ``ratings`` (``finished_game_ratings``)
    only where there are some."""
    if game_row is None:
        return None
    engine = get_game(game_row.game)
    over = game_row.status != Game.Status.IN_PROGRESS
    turn = None
    if not over and game_row.turn_seat is not None and game_row.deadline is not None:
        turn = {
            "seat": game_row.turn_seat,
            "deadline": game_row.deadline.timestamp(),
            "by": game_row.deadline_kind,
        }
    legal = []
    if seat is not None and not over:
        legal = engine.legal_actions(state, seat)
    shown = {
        "id": game_row.id,
        "number": game_row.number,
        "status": game_row.status,
        "view": engine.view_for(state, seat),
        "legal": legal,
        "turn": turn,
        "fairness": {
            "scheme": "hmac-sha256-dice/1",
            "server_seed_hash": game_row.server_seed_hash,
            "client_seed": game_row.client_seed,
            "server_seed": game_row.server_seed if over else None,
        },
        "placings": game_row.placings,
        "record_url": reverse("game_record", args=[game_row.id]) if over else None,
        "page_url": reverse("game_page", args=[game_row.id]) if over else None,
    }
    if ratings:
        shown["ratings"] = ratings
    return shown


def is_rated_table(room: Room) -> bool:
    """Quick play is always rated; a private table only when its host chose it."""
    if room.visibility == Room.Visibility.PUBLIC:
        return True
    return bool((room.options or {}).get("rated"))


def rating_change_json(seat: int, before: float, after: float) -> dict[str, Any]:
    """How one seat's rating moved in a game, as people see ratings: the skill
    (mu) to one decimal (accounts_optional.ratings.Row.shown)."""
    return {"seat": seat, "before": round(before, 1), "after": round(after, 1)}


def finished_game_ratings(game_row: Game | None) -> list[dict[str, Any]] | None:
    """How the rated seats' ratings moved in the room's finished game, by seat,
    once they are updated (after the game's commit, on a thread:
    accounts_optional.ratings); None before that, and for a game that is on,
    stopped or unrated. One query, and only for a finished game: a move costs
    none. Not asked of the room: its host may untick "rated" for the next
    game while this one's results are still on everyone's screen, and a page
    reloaded then lost the rating lines of a game that was rated."""
    if game_row is None or game_row.status != Game.Status.FINISHED:
        return None
    moved = (RatingChange.objects.filter(game_id=game_row.id, seat__isnull=False,
                                         mu_before__isnull=False)
             .order_by("seat").values_list("seat", "mu_before", "mu"))
    return [rating_change_json(seat, before, after) for seat, before, after in moved] or None


def you_json(seats: list[Seat], seat: int | None) -> dict[str, Any]:
    if seat is None:
        return {"seat": None, "is_host": False, "name": None}
    return {"seat": seat, "is_host": seat == 0, "name": seats[seat].name}


def message_for(
    kind: str, room: Room, seats: list[Seat], game_row: Game | None, state: Any,
    seat: int | None, events: list[dict[str, Any]] | None = None,
    shared_room: dict[str, Any] | None = None, ratings: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A ``snapshot`` or ``update`` for one seat (None: a spectator). ``ratings``:
    ``finished_game_ratings``, read once for all the seats' messages."""
    # server_time lets a page correct its countdown for a phone clock that is off.
    message: dict[str, Any] = {"type": kind, "version": room.version,
                               "server_time": round(clock.timestamp(), 3)}
    if kind == "update":
        engine = get_game(room.game)
        message["events"] = [engine.event_for(e, seat) for e in events or []]
    message["you"] = you_json(seats, seat)
    message["room"] = shared_room if shared_room is not None else room_json(room, seats)
    message["game"] = game_json(game_row, state, seat, ratings)
    return message


# ---- reads used by commands, consumers and views --------------------------------


def room_get(code: str) -> Room:
    normal = codes.normalize(code)
    room = Room.objects.filter(code=normal).exclude(status=Room.Status.CLOSED).first()
    if room is None:
        raise errors.NotFound("There is no open room with that code")
    return room


def current_game(room: Room) -> Game | None:
    """The room's game as the database has it now (callers outside a command
    may hold a stale room). Commands use ``room.current_game``, which the
    locking query fetched with the room."""
    return Game.objects.filter(room_id=room.id).order_by("-number").first()


def game_record(game_row: Game) -> dict[str, Any]:
    """The game's record (docs/record.md): exactly its move log, the server seed
    revealed only once the game is over."""
    events = list(game_row.moves.order_by("seq").values_list("event", flat=True))
    over = game_row.status != Game.Status.IN_PROGRESS
    return build_record(
        game=game_row.game,
        seats=game_row.seats,
        options=game_row.options,
        server_seed_hash=game_row.server_seed_hash,
        server_seed=bytes.fromhex(game_row.server_seed) if over else None,
        client_seed=game_row.client_seed,
        events=events,
        status=game_row.status,
        placings=game_row.placings,
    )


def seat_index_of(code: str, session_key: str) -> int | None:
    """The session's own seat (not one it plays for someone on its device)."""
    room = room_get(code)
    seat = room.seats.filter(kind=Seat.Kind.HUMAN, session_key=session_key,
                             on_device=False).first()
    return seat.index if seat else None


def own_seat(seats: list[Seat], session_key: str) -> int | None:
    return next((s.index for s in seats if s.kind == Seat.Kind.HUMAN
                 and s.session_key == session_key and not s.on_device), None)


# ---- pass and play: one device, several seats ----------------------------------


def devices_of(seats: list[Seat]) -> dict[str, list[int]]:
    """{owner_tag: the seats its session plays} for every session that plays
    more than one (pass and play); {} at most tables."""
    if not any(s.on_device for s in seats):
        return {}
    held: dict[str, list[int]] = {}
    for s in seats:
        if s.kind == Seat.Kind.HUMAN:
            held.setdefault(owner_tag(s.session_key), []).append(s.index)
    return {tag: indices for tag, indices in held.items() if len(indices) > 1}


def turn_seat_of(game_row: Game | None) -> int | None:
    """The seat whose decision the table waits for, None between games."""
    if game_row is None or game_row.status != Game.Status.IN_PROGRESS:
        return None
    return game_row.turn_seat


def device_json(held: list[int], own: int | None, secret: bool) -> dict[str, Any]:
    """What a shared device's page is told besides the seat it shows (``you``)."""
    return {"seats": held, "own": own, "secret": secret}


def device_seat_shown(*, held: list[int], own: int | None, turn_seat: int | None,
                      showing: int | None, secret: bool) -> int | None:
    """Which seat's view a device shared by several players gets (None: a
    spectator's). Between games its owner's. In a game without secret hands,
    the turn's player's when they are on the device. With secret hands (Liar's
    Dice), only the seat the device was handed to (``showing``: its player
    tapped the cover) and only while it is that seat's turn: one player's dice
    never reach the screen the next player looks at."""
    if turn_seat is None:
        return own
    if not secret:
        return turn_seat if turn_seat in held else own
    return showing if showing is not None and showing == turn_seat and showing in held else None


def snapshot_for(code: str, session_key: str, showing: int | None = None) -> dict[str, Any]:
    """The session's snapshot: its own seat's view, or for a shared device the
    seat it shows (``device_seat_shown``), with a ``device`` field."""
    room = room_get(code)
    return snapshot_of(room, list(room.seats.order_by("index")), current_game(room),
                       session_key, showing)


def snapshot_of(room: Room, seats: list[Seat], game_row: Game | None, session_key: str,
                showing: int | None = None) -> dict[str, Any]:
    """``snapshot_for`` of a room already read (a command's locked room)."""
    seat = own_seat(seats, session_key)
    held = [s.index for s in seats if s.kind == Seat.Kind.HUMAN and s.session_key == session_key]
    device = None
    if len(held) > 1:
        secret = declaration(room.game).secret_hands
        device = device_json(held, seat, secret)
        seat = device_seat_shown(held=held, own=seat, turn_seat=turn_seat_of(game_row),
                                 showing=showing, secret=secret)
    state = load_state(game_row) if game_row is not None else None
    message = message_for("snapshot", room, seats, game_row, state, seat,
                          ratings=finished_game_ratings(game_row))
    if device is not None:
        message["device"] = device
    return message


def turn_snapshot_for(code: str, session_key: str, seat: Any) -> dict[str, Any]:
    """``show_seat``: the snapshot of ``seat``, a seat the session plays whose
    turn it is (the player the phone was passed to tapped the cover)."""
    room = room_get(code)
    game_row = current_game(room)
    held = room.seats.filter(kind=Seat.Kind.HUMAN, session_key=session_key).values_list(
        "index", flat=True)
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in set(held):
        raise errors.NotSeated("That seat is not played on this device")
    if turn_seat_of(game_row) != seat:
        raise errors.NotYourTurn("It is not that player's turn")
    return snapshot_for(code, session_key, showing=seat)


# ---- a player's games ------------------------------------------------------------


def _player_seats(*, user=None, session_key: str = ""):
    match = Q(pk__in=[])
    if user is not None and getattr(user, "is_authenticated", False):
        match |= Q(user=user)
    if session_key:
        match |= Q(session_key=session_key)
    # Not the seats its session played for others on the same phone (pass and play).
    return Seat.objects.filter(match, kind=Seat.Kind.HUMAN, on_device=False)


@dataclass
class PlayedGame:
    game: Game
    seat: int
    name: str
    place: int | None  # 1 = won; None when aborted

    @property
    def title(self) -> str:
        return get_game(self.game.game).title

    @property
    def won(self) -> bool:
        return self.place == 1


def player_games(*, user=None, session_key: str = "", limit: int | None = None) -> list[PlayedGame]:
    """Games that are over in which the player held a human seat, newest first."""
    seats = {(s.room_id, s.index) for s in _player_seats(user=user, session_key=session_key)}
    if not seats:
        return []
    rooms = {room for room, _ in seats}
    games = (Game.objects.filter(room_id__in=rooms, status__in=OVER)
             .select_related("room").order_by("-finished_at", "-id"))
    out = []
    for game in games:
        for room_id, index in seats:
            if room_id != game.room_id or index >= len(game.seats):
                continue
            entry = game.seats[index]
            if entry.get("kind") != "human":
                continue
            place = None
            if game.status == Game.Status.FINISHED and index in game.placings:
                place = game.placings.index(index) + 1
            out.append(PlayedGame(game, index, entry.get("name", ""), place))
        if limit is not None and len(out) >= limit:
            break
    return out[:limit] if limit is not None else out


@dataclass
class OpenTable:
    """A room this player sits at that is still open, for the home page's
    way back to it."""
    code: str
    game: str
    status: str  # the room's: lobby, playing or finished
    held: bool  # a computer plays the seat until the player comes back

    @property
    def title(self) -> str:
        return get_game(self.game).title


def open_tables(*, user=None, session_key: str = "", limit: int = 3) -> list[OpenTable]:
    """The open rooms where the player has a seat, the most recently used first:
    a player who went to the start ("Leave the game", a tap on the site's name)
    found no way back there but the code."""
    seats = (_player_seats(user=user, session_key=session_key)
             .filter(room__status__in=[Room.Status.LOBBY, Room.Status.PLAYING,
                                       Room.Status.FINISHED])
             .select_related("room").order_by("-room__last_activity")[:limit])
    return [OpenTable(s.room.code, s.room.game, s.room.status, s.held) for s in seats]


# ---- the staff dashboard -------------------------------------------------------------


def start_of_today() -> datetime:
    now = timezone.localtime()
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def dashboard_stats() -> dict[str, int]:
    today = start_of_today()
    open_rooms = Room.objects.exclude(status=Room.Status.CLOSED)
    table_events = MoveLog.objects.filter(created_at__gte=today)
    return {
        "rooms_open": open_rooms.count(),
        "games_in_play": Game.objects.filter(status=Game.Status.IN_PROGRESS,
                                             room__status=Room.Status.PLAYING).count(),
        "players_connected": Seat.objects.filter(
            room__in=open_rooms, kind=Seat.Kind.HUMAN, connections__gt=0
        ).count(),
        "connections": Seat.objects.filter(room__in=open_rooms).aggregate(
            n=Sum("connections"))["n"] or 0,
        "games_finished_today": Game.objects.filter(
            status=Game.Status.FINISHED, finished_at__gte=today).count(),
        "timeouts_today": table_events.filter(event__type="timeout").count(),
        "takeovers_today": table_events.filter(event__type="takeover").count(),
    }


def rooms_open_now():
    return (Room.objects.exclude(status=Room.Status.CLOSED)
            .order_by("-last_activity").prefetch_related("seats"))
