"""Everything that changes a room: one function per command (HackSoft's services).

Each command runs in one ``transaction.atomic()`` holding the room's row lock
(``select_for_update`` on PostgreSQL; on SQLite every transaction takes the
write lock at BEGIN, see settings), so a room applies one command at a time,
whatever process it arrives in. A command appends its events to the move log,
bumps the room's version, and *after commit* broadcasts every seat its own view
and arms the next deadline (``rooms.publish``). Consumers and views are thin:
they parse, call one of these, and turn ``RoomError`` into a reply.
"""

from __future__ import annotations

import logging
import random
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import timedelta
from threading import Lock
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F

from accounts_optional import ratings
from games import base as engine_base
from games.bots import make_bot
from games.fairness import (
    DiceStream,
    combine_client_seed,
    new_server_seed,
    seed_hash,
    valid_contribution,
)
from games.record import build_record, fold
from games.registry import get_game

from . import clock, codes, errors, publish, rows
from .models import Game, Room, Seat
from .nicknames import BadNickname, clean_nickname

log = logging.getLogger(__name__)

BOT_DELAY = 1.0  # seconds: a computer plays at a human-like pace (settings.KHELAGHOR_BOT_DELAY)
AWAY_FOR_TAKEOVER = 45  # seconds disconnected after which one timeout hands the seat over
TIMEOUTS_FOR_TAKEOVER = 3
QUICK_PLAY_WAIT = 10  # seconds a public table waits for humans before computers fill it
QUICK_PLAY_SEATS = {"liars_dice": 4, "ludo": 4, "snakes": 4}
LOBBY_IDLE = timedelta(hours=2)
FINISHED_IDLE = timedelta(hours=2)
PLAYING_IDLE = timedelta(hours=24)
HOUSE_RULES = {"ludo": ("home_bonus_roll",), "snakes": ("board",), "liars_dice": ()}
# A private table's choices that are not the engine's (kept in Room.options,
# never in the game's record): "rated" counts its games for ratings.
TABLE_CHOICES = ("rated",)


@dataclass(frozen=True)
class Actor:
    """Who sends a command: a browser session (and the account, if signed in)."""

    session_key: str
    name: str = ""
    user_id: int | None = None


@dataclass
class Change:
    """What one command did, handed to ``publish`` after commit. Commands that
    already hold the seats, the game row and its state pass them along, so the
    broadcast costs no further queries."""

    room_id: int
    events: list[dict[str, Any]] = field(default_factory=list)
    seats: list[Seat] | None = None
    game_row: Game | None = None
    state: Any = None
    # A refusal that must not undo the rest (an action that also reclaimed a
    # held seat: the seat is back, the action was not legal). Callers report it.
    refusal: errors.RoomError | None = None
    # Moves applied ((seq, event)) and game fields changed, written by _commit
    # together with the room in one round trip.
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    game_fields: set[str] = field(default_factory=set)
    # The next deadline to arm (game id, seq, when), after the broadcast.
    deadline: tuple[int, int, Any] | None = None
    # A seat whose player just showed they are here (``_seen``): its last_seen
    # is written with the rest.
    seen: Seat | None = None


# ---- state ---------------------------------------------------------------------

_STATE_CACHE: OrderedDict[int, tuple[int, Any]] = OrderedDict()
_STATE_CACHE_SIZE = 2000
_cache_lock = Lock()


def load_state(game_row: Game) -> Any:
    """The engine state of ``game_row``, rebuilt from its move log. A cached
    copy built at an earlier ``seq`` is moved on by the events logged since
    (another process served the moves in between); the log is the truth."""
    with _cache_lock:
        cached = _STATE_CACHE.get(game_row.id)
    if cached and cached[0] == game_row.seq:
        return cached[1]
    engine = get_game(game_row.game)
    if cached and cached[0] < game_row.seq:
        since, state = cached
    else:
        since, state = 0, engine.initial_state(len(game_row.seats), game_row.options)
    events = rows.events_between(game_row.id, since, game_row.seq)
    if len(events) != game_row.seq - since:
        raise RuntimeError(f"game {game_row.id}: move log has a gap before seq {game_row.seq}")
    state = fold(engine, events, state)
    _remember(game_row, state)
    return state


def _remember(game_row: Game, state: Any) -> None:
    """Cache ``state`` as the game's state at its current ``seq`` once the
    transaction commits: a rolled-back move must not leave its state behind
    for a ``seq`` that other moves may reach later."""
    game_id, seq = game_row.id, game_row.seq

    def remember() -> None:
        with _cache_lock:
            _STATE_CACHE[game_id] = (seq, state)
            _STATE_CACHE.move_to_end(game_id)
            while len(_STATE_CACHE) > _STATE_CACHE_SIZE:
                _STATE_CACHE.popitem(last=False)

    transaction.on_commit(remember)


def forget_cached_states() -> None:
    with _cache_lock:
        _STATE_CACHE.clear()


# ---- lookups -------------------------------------------------------------------


def room_get(code: str) -> Room:
    normal = codes.normalize(code)
    room = Room.objects.filter(code=normal).exclude(status=Room.Status.CLOSED).first()
    if room is None:
        raise errors.NotFound("There is no open room with that code")
    return room


def _locked(code_or_id: str | int) -> Room:
    if isinstance(code_or_id, int):
        return _locked_where(id=code_or_id)
    return _locked_where(code=codes.normalize(code_or_id), open_only=True)


def _locked_where(*, open_only: bool = False, **lookup: Any) -> Room:
    """The room, row-locked, with its current game and its seats read after
    the lock (``rooms.rows``); the game and seats are guarded by the room's lock."""
    room = rows.lock_room(open_only=open_only, **lookup)
    if room is None:
        raise errors.NotFound("There is no open room with that code")
    return room


def _locked_seat(code: str, actor: Actor, refusal: str) -> tuple[Room, list[Seat], Seat]:
    """The locked room, its seats and the actor's own; NotSeated otherwise."""
    room = _locked(code)
    seats = _seats(room)
    seat = _seat_of(seats, actor)
    if seat is None:
        raise errors.NotSeated(refusal)
    return room, seats, seat


def _seats(room: Room) -> list[Seat]:
    """The room's seats: those read with its lock, the same objects for the
    whole command, or fresh from the database for a room not locked here."""
    locked = getattr(room, "locked_seats", None)
    if locked is not None:
        return locked
    return list(room.seats.order_by("index"))


def _seat_of(seats: list[Seat], actor: Actor) -> Seat | None:
    for seat in seats:
        if seat.kind == Seat.Kind.HUMAN and seat.session_key == actor.session_key:
            return seat
    return None


def current_game(room: Room) -> Game | None:
    """The room's game as the database has it now (callers outside a command
    may hold a stale room). Commands use ``room.current_game``, which the
    locking query fetched with the room."""
    return Game.objects.filter(room_id=room.id).order_by("-number").first()


def _require_open(room: Room) -> None:
    if room.status == Room.Status.CLOSED:
        raise errors.RoomClosed(room.closed_reason or "This room has been closed")


def _require_host(seats: list[Seat], actor: Actor) -> Seat:
    seat = _seat_of(seats, actor)
    if seat is None or seat.index != 0:
        raise errors.NotHost("Only the host can do that")
    return seat


def _name_for(actor: Actor) -> str:
    try:
        return clean_nickname(actor.name)
    except BadNickname:
        return ""


def _commit(room: Room, change: Change) -> Change:
    """Bump the version and publish after commit (the one exit of every command).
    The room row is locked, so a plain increment is safe."""
    room.version += 1
    room.last_activity = clock.now()
    writes = []
    if change.moves:
        writes.append(rows.moves_statement(change.game_row, change.moves))
    if change.game_fields:
        writes.append(rows.update_statement(change.game_row, sorted(change.game_fields)))
    if change.seen is not None:
        writes.append(rows.update_statement(change.seen, ["last_seen"]))
    writes.append(rows.update_statement(
        room, ["version", "last_activity", "status", "autostart_at", "closed_reason"]
    ))
    rows.run(writes)
    # robust: the move is committed; a Redis blip must not turn it into an error
    # (clients resync on the next version, the database sweep re-arms timers).
    transaction.on_commit(lambda: publish.room_changed(room, change), robust=True)
    if change.deadline is not None:  # armed after the broadcast is on its way
        transaction.on_commit(lambda: publish.arm_game(*change.deadline), robust=True)
    return change


# ---- creating and joining ------------------------------------------------------


def room_create(
    *,
    actor: Actor,
    game: str,
    seats: int,
    pace: str = Room.Pace.NORMAL,
    options: dict[str, Any] | None = None,
    visibility: str = Room.Visibility.PRIVATE,
) -> Room:
    """A new room with the creator in seat 0 (the host)."""
    from . import moderation

    moderation.check_not_banned(actor)
    try:
        engine = get_game(game)
    except KeyError:
        raise errors.BadMessage("Unknown game") from None
    if not isinstance(seats, int) or not engine.min_players <= seats <= engine.max_players:
        raise errors.BadMessage(
            "{game} is for {low} to {high} players", game=errors.Text(engine.title),
            low=engine.min_players, high=engine.max_players,
        )
    if pace not in Room.Pace.values:
        raise errors.BadMessage("Pace is normal or party")
    options = _house_rules(engine, seats, options or {}, private=visibility == "private")
    name = _name_for(actor)
    if not name:
        raise errors.BadMessage("Please choose a nickname first")
    server_seed = new_server_seed()
    for _attempt in range(50):
        code = codes.random_code()
        try:
            with transaction.atomic():
                room = Room.objects.create(
                    code=code, game=game, options=options, pace=pace, visibility=visibility,
                    next_server_seed=server_seed.hex(),
                    next_server_seed_hash=seed_hash(server_seed),
                    last_activity=clock.now(),
                    autostart_at=(
                        clock.now() + timedelta(seconds=QUICK_PLAY_WAIT)
                        if visibility == Room.Visibility.PUBLIC else None
                    ),
                )
                Seat.objects.bulk_create(
                    [Seat(room=room, index=i) for i in range(seats)]
                )
                Seat.objects.filter(room=room, index=0).update(
                    kind=Seat.Kind.HUMAN, session_key=actor.session_key, name=name,
                    user_id=actor.user_id,
                )
            break
        except IntegrityError:
            continue  # the code was taken meanwhile: draw another
    else:
        raise errors.RoomError("No free room code; please try again")
    if room.autostart_at:
        transaction.on_commit(lambda: publish.arm_room(room.id, room.autostart_at), robust=True)
    return room


def _house_rules(engine, seats: int, given: dict[str, Any], *, private: bool) -> dict[str, Any]:
    allowed = HOUSE_RULES.get(engine.name, ())
    chosen = {k: v for k, v in given.items() if k in allowed} if private else {}
    unknown = set(given) - set(allowed) - set(TABLE_CHOICES)
    if unknown:
        raise errors.BadMessage("Unknown house rule: {rules}", rules=", ".join(sorted(unknown)))
    if not isinstance(given.get("rated", False), bool):
        raise errors.BadMessage("Rated is yes or no")
    try:
        resolved = engine.resolve_options(seats, chosen)
    except engine_base.GameError as exc:
        raise errors.from_engine(exc) from None
    if private and given.get("rated"):
        resolved["rated"] = True
    return resolved


def _engine_options(room: Room) -> dict[str, Any]:
    return {k: v for k, v in room.options.items() if k not in TABLE_CHOICES}


def play_now(*, actor: Actor, game: str) -> Room:
    """Quick play: a seat at a public table of ``game`` that is still waiting,
    or a new one that starts with computer players after a short wait."""
    with transaction.atomic():
        waiting = (
            Room.objects.select_for_update()
            .filter(game=game, visibility=Room.Visibility.PUBLIC, status=Room.Status.LOBBY)
            .order_by("created_at")
        )
        for room in waiting:
            seats = _seats(room)
            if _seat_of(seats, actor):
                return room
            if any(s.kind == Seat.Kind.OPEN for s in seats):
                seat_join(room.code, actor)
                return room
    return room_create(
        actor=actor, game=game, seats=QUICK_PLAY_SEATS.get(game, 4),
        visibility=Room.Visibility.PUBLIC,
    )


@transaction.atomic
def seat_join(
    code: str, actor: Actor, seat: int | None = None, client_seed: str | None = None,
    *, over_socket: bool = False,
):
    from . import moderation

    moderation.check_not_banned(actor)
    room = _locked(code)
    _require_open(room)
    seats = _seats(room)
    mine = _seat_of(seats, actor)
    name = _name_for(actor)
    if mine is not None:
        # Already seated: joining again only refreshes the seed, which nobody
        # sees before the start, so the room has not changed: no new version.
        if client_seed is not None:
            _set_seed(mine, client_seed)
        return Change(room.id)
    if room.status != Room.Status.LOBBY:
        raise errors.WrongStatus("The game has started; you can watch until the next one")
    if not name:
        raise errors.BadMessage("Please choose a nickname first")
    target = _free_seat(seats, seat)
    target.kind = Seat.Kind.HUMAN
    target.session_key = actor.session_key
    target.user_id = actor.user_id
    target.name = name
    # A join sent over the room socket comes from a page that is connected now
    # (its connect counted no seat); a quick-play join over HTTP is not, yet.
    target.connections = 1 if over_socket else 0
    target.last_seen = clock.now() if over_socket else None
    target.save()
    if client_seed is not None:
        _set_seed(target, client_seed)
    return _commit(room, Change(room.id, [{"type": "joined", "seat": target.index}]))


def _free_seat(seats: list[Seat], wanted: Any) -> Seat:
    """The seat asked for, which must be open, or the lowest open one."""
    if wanted is None:
        target = next((s for s in seats if s.kind == Seat.Kind.OPEN), None)
        if target is None:
            raise errors.RoomFull("Every seat is taken")
        return target
    if not isinstance(wanted, int) or isinstance(wanted, bool) or not 0 <= wanted < len(seats):
        raise errors.BadMessage("There is no such seat")
    if seats[wanted].kind != Seat.Kind.OPEN:
        raise errors.SeatTaken("That seat is taken")
    return seats[wanted]


def _set_seed(seat: Seat, client_seed: str) -> None:
    if not valid_contribution(client_seed):
        raise errors.BadMessage("A client seed is 1 to 64 letters, digits, - or _")
    seat.client_seed = client_seed
    seat.save(update_fields=["client_seed"])


@transaction.atomic
def seat_seed(code: str, actor: Actor, client_seed: str) -> Change:
    room, _, seat = _locked_seat(code, actor, "Take a seat first")
    if room.status == Room.Status.PLAYING:
        raise errors.WrongStatus("The dice of this game are already fixed")
    _set_seed(seat, client_seed)
    return Change(room.id)  # nothing others need to see


@transaction.atomic
def seat_leave(code: str, actor: Actor) -> Change:
    room, seats, seat = _locked_seat(code, actor, "You have no seat here")
    if room.status == Room.Status.PLAYING:
        # Mid-game a computer holds the seat; the player may come back.
        seat.held = True
        seat.save(update_fields=["held"])
        change = Change(room.id, [{"type": "takeover", "seat": seat.index}])
        game_row = room.current_game
        _log_table_event(game_row, {"type": "takeover", "seat": seat.index, "reason": "left"})
        _rearm(room, game_row, seats)
        return _commit(room, change)
    if seat.index == 0:
        raise errors.WrongStatus("The host keeps seat 1; close the room instead")
    _open_seat(seat)
    return _commit(room, Change(room.id, [{"type": "left", "seat": seat.index}]))


def _open_seat(seat: Seat) -> None:
    seat.kind = Seat.Kind.OPEN
    seat.session_key = ""
    seat.user_id = None
    seat.name = ""
    seat.bot_kind = ""
    seat.held = False
    seat.connections = 0
    seat.client_seed = ""
    seat.consecutive_timeouts = 0
    seat.save()


# ---- host controls -------------------------------------------------------------


@transaction.atomic
def bot_add(code: str, actor: Actor, seat: int | None = None, kind: str = "standard") -> Change:
    room = _locked(code)
    seats = _seats(room)
    _require_host(seats, actor)
    if room.status != Room.Status.LOBBY:
        raise errors.WrongStatus("Computer players join before the start")
    if not isinstance(kind, str) or kind.startswith("external"):
        raise errors.BadMessage("Unknown computer player")
    try:
        make_bot(room.game, kind)
    except ValueError:
        raise errors.BadMessage("Unknown computer player") from None
    target = _free_seat(seats, seat)
    _seat_bot(target, kind)
    return _commit(room, Change(room.id, [{"type": "joined", "seat": target.index}]))


_BOT_NAMES = ["Robi", "Mitu", "Tuni", "Bablu", "Shapla", "Dolon"]


def _seat_bot(seat: Seat, kind: str) -> None:
    seat.kind = Seat.Kind.BOT
    seat.bot_kind = kind
    seat.name = f"{_BOT_NAMES[seat.index % len(_BOT_NAMES)]} (AI)"
    seat.session_key = ""
    seat.save()


@transaction.atomic
def bot_remove(code: str, actor: Actor, seat: int) -> Change:
    room = _locked(code)
    seats = _seats(room)
    _require_host(seats, actor)
    if room.status != Room.Status.LOBBY:
        raise errors.WrongStatus("Computer players leave before the start")
    if not isinstance(seat, int) or not 0 <= seat < len(seats) or seats[seat].kind != "bot":
        raise errors.BadMessage("That seat has no computer player")
    _open_seat(seats[seat])
    return _commit(room, Change(room.id, [{"type": "left", "seat": seat}]))


@transaction.atomic
def options_set(code: str, actor: Actor, options: dict[str, Any] | None, pace: str | None):
    room = _locked(code)
    seats = _seats(room)
    _require_host(seats, actor)
    if room.status not in (Room.Status.LOBBY, Room.Status.FINISHED):
        raise errors.WrongStatus("House rules are set between games")
    if pace is not None:
        if pace not in Room.Pace.values:
            raise errors.BadMessage("Pace is normal or party")
        room.pace = pace
    if options is not None:
        if not isinstance(options, dict):
            raise errors.BadMessage("Options must be an object")
        if room.visibility != Room.Visibility.PRIVATE and options:
            raise errors.WrongStatus("House rules are for private tables")
        engine = get_game(room.game)
        kept = (*HOUSE_RULES[room.game], *TABLE_CHOICES)
        merged = {k: v for k, v in room.options.items() if k in kept}
        merged.update(options)
        room.options = _house_rules(engine, len(seats), merged, private=True)
    room.save(update_fields=["pace", "options"])
    return _commit(room, Change(room.id))


@transaction.atomic
def game_start(code: str, actor: Actor | None) -> Change:
    """Start (or, after the results, rematch): a new game with the room's seats."""
    room = _locked(code)
    seats = _seats(room)
    if actor is not None:
        _require_host(seats, actor)
    return _start(room, seats)


def _start(room: Room, seats: list[Seat]) -> Change:
    if room.status not in (Room.Status.LOBBY, Room.Status.FINISHED):
        raise errors.WrongStatus("A game is already being played")
    if any(s.kind == Seat.Kind.OPEN for s in seats):
        raise errors.WrongStatus("Fill every seat with a player or a computer first")
    engine = get_game(room.game)
    options = engine.resolve_options(len(seats), _engine_options(room))
    state = engine.initial_state(len(seats), options)
    record_seats = []
    for seat in seats:
        entry: dict[str, Any] = {"seat": seat.index, "name": seat.name, "kind": seat.kind}
        if seat.kind == Seat.Kind.BOT:
            entry["bot"] = seat.bot_kind
        entry.update(engine.record_seat_extra(state, seat.index))
        record_seats.append(entry)
    number = (room.games.count() or 0) + 1
    game_row = Game.objects.create(
        room=room, number=number, game=room.game, options=options, seats=record_seats,
        server_seed=room.next_server_seed, server_seed_hash=room.next_server_seed_hash,
        client_seed=combine_client_seed(
            {s.index: s.client_seed for s in seats if s.kind == Seat.Kind.HUMAN and s.client_seed}
        ),
    )
    # The next game's server seed is chosen and committed now, before anyone
    # can contribute to that game: each contribution serves one game only and
    # is cleared below, so a rematch's client seed is made of fresh ones sent
    # after this commitment was shown. Reusing them would let the server pick
    # its next seed knowing the players' input.
    fresh = new_server_seed()
    room.next_server_seed, room.next_server_seed_hash = fresh.hex(), seed_hash(fresh)
    room.status = Room.Status.PLAYING
    room.autostart_at = None
    room.current_game = game_row
    room.save(update_fields=["next_server_seed", "next_server_seed_hash", "status",
                             "current_game"])
    for seat in seats:
        seat.consecutive_timeouts = 0
        seat.held = False
        seat.client_seed = ""
        seat.save(update_fields=["consecutive_timeouts", "held", "client_seed"])
    _remember(game_row, state)
    change = Change(room.id, [{"type": "started", "game": game_row.number}], seats, game_row)
    change.state = _run_automatic(room, game_row, seats, state, change)
    return _commit(room, change)


# ---- playing -------------------------------------------------------------------


def _engine_error(exc: engine_base.GameError, seats: list[Seat]) -> errors.RoomError:
    return errors.from_engine(exc, [s.name for s in seats])


def _clean_action(action: Any) -> dict[str, Any]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise errors.BadMessage("An action is an object with a type")
    # Clients never choose dice: the table draws them.
    return {k: v for k, v in action.items() if k != "dice"}


@transaction.atomic
def game_action(code: str, actor: Actor, version: Any, action: Any) -> Change:
    room = _locked(code)
    _require_open(room)
    if room.status != Room.Status.PLAYING:
        raise errors.WrongStatus("No game is being played")
    if version != room.version:
        raise errors.StaleVersion("The table has moved on; here is the current state")
    action = _clean_action(action)
    seats = _seats(room)
    seat = _seat_of(seats, actor)
    if seat is None:
        raise errors.NotSeated("Spectators cannot play")
    game_row = room.current_game
    state = load_state(game_row)
    engine = get_game(game_row.game)
    turn = engine.turn(state)
    change = Change(room.id)
    _seen(seat, change)
    if seat.held:
        _reclaim(game_row, seat, change)
    try:
        if turn is None:
            raise engine_base.IllegalAction("The game is over")
        # The engine judges turn order too: its refusals name the player to wait for.
        state = _apply(room, game_row, seats, state, seat.index, action, change)
    except engine_base.GameError as exc:
        if change.events:  # the reclaim stands even when the action cannot...
            _rearm(room, game_row, seats)  # ...and the decision gets a human's time
            change.refusal = _engine_error(exc, seats)
            return _commit(room, change)
        raise _engine_error(exc, seats) from None
    if seat.consecutive_timeouts:
        seat.consecutive_timeouts = 0
        rows.save_fields(seat, ["consecutive_timeouts"])
    change.seats, change.game_row = seats, game_row
    change.state = _run_automatic(room, game_row, seats, state, change)
    return _commit(room, change)


def _reclaim(game_row: Game, seat: Seat, change: Change) -> None:
    seat.held = False
    seat.consecutive_timeouts = 0
    rows.save_fields(seat, ["held", "consecutive_timeouts"])
    event = {"type": "reclaim", "seat": seat.index}
    _log_table_event(game_row, event)
    change.events.append(event)


@transaction.atomic
def seat_reclaim(code: str, actor: Actor) -> Change:
    room, seats, seat = _locked_seat(code, actor, "You have no seat here")
    change = Change(room.id)
    if seat.held and room.status == Room.Status.PLAYING:
        game_row = room.current_game
        _reclaim(game_row, seat, change)
        _rearm(room, game_row, seats)
    return _commit(room, change)


def _draw(game_row: Game, count: int) -> list[int]:
    stream = DiceStream(bytes.fromhex(game_row.server_seed), game_row.client_seed,
                        game_row.nonce)
    dice = stream.draw(count)
    game_row.nonce = stream.nonce
    return dice


def _log_table_event(game_row: Game, event: dict[str, Any]) -> None:
    insert = rows.moves_statement(game_row, [(game_row.seq, event)])
    game_row.seq += 1
    rows.run([insert, rows.update_statement(game_row, ["seq"])])


def _apply(room, game_row, seats, state, seat_index, action, change) -> Any:
    engine = get_game(game_row.game)
    turn = engine.turn(state)
    if turn is not None and turn.dice:
        before = game_row.nonce
        action = {**action, "dice": _draw(game_row, turn.dice)}
        try:
            new_state, events = engine.apply(state, seat_index, action)
        except engine_base.GameError:
            game_row.nonce = before  # a refused roll draws nothing
            raise
    else:
        new_state, events = engine.apply(state, seat_index, action)
    change.game_row = game_row
    change.moves.extend(enumerate(events, start=game_row.seq))
    change.game_fields.update(("seq", "nonce"))
    game_row.seq += len(events)
    change.events.extend(events)
    _remember(game_row, new_state)
    return new_state


def bot_delay() -> float:
    return float(getattr(settings, "KHELAGHOR_BOT_DELAY", BOT_DELAY))


def _run_automatic(room: Room, game_row: Game, seats: list[Seat], state: Any, change: Change):
    """Apply what needs no one (a deal, a forced move; computer seats too when
    they play without a pause), then finish the game or set the next deadline."""
    engine = get_game(game_row.game)
    instant_bots = bot_delay() <= 0
    while True:
        turn = engine.turn(state)
        if turn is None:
            _finish(room, game_row, state, change)
            return state
        if turn.seat is None:
            state = _apply(room, game_row, seats, state, None, {"type": "roll"}, change)
        elif turn.forced is not None:
            state = _apply(room, game_row, seats, state, turn.seat, turn.forced, change)
        elif instant_bots and (seats[turn.seat].kind == Seat.Kind.BOT or seats[turn.seat].held):
            action = _computer_choice(game_row, engine, state, turn, seats[turn.seat])
            state = _apply(room, game_row, seats, state, turn.seat, action, change)
        else:
            break
    change.deadline = _set_deadline(room, game_row, seats, turn)
    change.game_row = game_row
    change.game_fields.update(("seq", "nonce", "turn_seat", "deadline", "deadline_kind"))
    return state


def _set_deadline(room: Room, game_row: Game, seats: list[Seat], turn) -> tuple[int, int, Any]:
    """Set the pending decision's deadline on ``game_row``; return what to arm."""
    seat = seats[turn.seat]
    if seat.kind == Seat.Kind.BOT or seat.held:
        seconds, by = bot_delay(), "bot"
    else:
        seconds, by = room.turn_seconds, "human"
    game_row.turn_seat = turn.seat
    game_row.deadline = clock.now() + timedelta(seconds=seconds)
    game_row.deadline_kind = by
    return game_row.id, game_row.seq, game_row.deadline


def _rearm(room: Room, game_row: Game, seats: list[Seat]) -> None:
    """A seat changed hands mid-turn: the pending decision gets the new pace."""
    if game_row is None or game_row.status != Game.Status.IN_PROGRESS:
        return
    turn = get_game(game_row.game).turn(load_state(game_row))
    if turn is not None and turn.seat is not None:
        deadline = _set_deadline(room, game_row, seats, turn)
        rows.save_fields(game_row, ["turn_seat", "deadline", "deadline_kind"])
        publish.arm_game_on_commit(*deadline)


def _finish(room: Room, game_row: Game, state: Any, change: Change) -> None:
    engine = get_game(game_row.game)
    game_row.status = Game.Status.FINISHED
    game_row.placings = engine.placings(state)
    game_row.finished_at = clock.now()
    game_row.deadline = None
    game_row.turn_seat = None
    game_row.save()
    room.status = Room.Status.FINISHED
    change.events.append({"type": "finished", "placings": game_row.placings})
    ratings.game_finished(room, game_row, _seats(room))  # after commit, off the move path


@transaction.atomic
def deadline_fire(game_id: int, seq: int) -> Change | None:
    """The timer says game ``game_id`` reached its deadline at ``seq``. Acts
    exactly once: a stale or repeated call finds another seq and does nothing."""
    try:
        # Only a room's current game has deadlines; an older game's finds nothing.
        room = _locked_where(current_game_id=game_id)
    except errors.NotFound:
        return None
    game_row = room.current_game
    if (
        game_row.status != Game.Status.IN_PROGRESS
        or game_row.seq != seq
        or game_row.deadline is None
        or room.status != Room.Status.PLAYING
    ):
        return None
    now = clock.now()
    if now < game_row.deadline - timedelta(milliseconds=20):
        publish.arm_game_on_commit(game_id, seq, game_row.deadline)  # claimed early: re-arm
        return None
    seats = _seats(room)
    engine = get_game(game_row.game)
    state = load_state(game_row)
    turn = engine.turn(state)
    if turn is None or turn.seat is None:
        return None
    seat = seats[turn.seat]
    change = Change(room.id)
    if seat.kind == Seat.Kind.HUMAN and not seat.held:
        seat.consecutive_timeouts += 1
        timeout = {"type": "timeout", "seat": seat.index}
        _log_table_event(game_row, timeout)
        change.events.append(timeout)
        away = seat.away_seconds(now) >= AWAY_FOR_TAKEOVER
        if seat.consecutive_timeouts >= TIMEOUTS_FOR_TAKEOVER or away:
            seat.held = True
            takeover = {"type": "takeover", "seat": seat.index}
            _log_table_event(game_row, takeover)
            change.events.append(takeover)
        rows.save_fields(seat, ["consecutive_timeouts", "held"])
    action = _computer_choice(game_row, engine, state, turn, seat)
    state = _apply(room, game_row, seats, state, turn.seat, action, change)
    change.seats, change.game_row = seats, game_row
    change.state = _run_automatic(room, game_row, seats, state, change)
    return _commit(room, change)


def _computer_choice(game_row: Game, engine, state, turn, seat: Seat) -> dict[str, Any]:
    """What a computer does in ``seat``: its own kind on a computer seat, the
    ``standard`` player for a human who timed out or whose seat is held. It sees
    only that seat's view."""
    if turn.dice:
        return {"type": "roll"}
    kind = seat.bot_kind if seat.kind == Seat.Kind.BOT else "standard"
    bot = make_bot(game_row.game, kind)
    rng = random.Random(f"{game_row.id}:{game_row.seq}")
    return bot.choose(
        engine.view_for(state, turn.seat), engine.legal_actions(state, turn.seat), rng
    )


@transaction.atomic
def room_autostart(room_id: int) -> Change | None:
    """A public table that waited long enough: computers fill the empty seats and it starts."""
    try:
        room = _locked(room_id)
    except errors.NotFound:
        return None
    if room.status != Room.Status.LOBBY or room.autostart_at is None:
        return None
    if clock.now() < room.autostart_at - timedelta(milliseconds=20):
        return None
    seats = _seats(room)
    if not any(s.kind == Seat.Kind.HUMAN for s in seats):
        return None
    for seat in seats:
        if seat.kind == Seat.Kind.OPEN:
            _seat_bot(seat, "standard")
    return _start(room, seats)


# ---- connections ---------------------------------------------------------------


@transaction.atomic
def connection_opened(code: str, actor: Actor) -> Seat | None:
    room = _locked(code)
    seat = _seat_of(_seats(room), actor)
    if seat is None:
        return None
    was_connected = seat.connected
    Seat.objects.filter(id=seat.id).update(
        connections=F("connections") + 1, last_seen=clock.now(), disconnected_at=None
    )
    # A second tab of a connected seat changes nothing anyone sees: no version.
    if not was_connected:
        _commit(room, Change(room.id))
    return seat


# Seconds between two presence writes for one connection (rooms.consumers)
# or one seat's actions (``_seen``): with pings every 25 s a live page's
# last_seen is never older than about 25 s, well inside Seat.SILENT_AFTER_SECONDS.
SEEN_EVERY = 10


def _seen(seat: Seat, change: Change) -> None:
    """An action is a sign of life too: renew the seat's presence in the
    command's own writes (no extra round trip), at most every SEEN_EVERY s."""
    now = clock.now()
    if seat.last_seen is None or now - seat.last_seen >= timedelta(seconds=SEEN_EVERY):
        seat.last_seen = now
        change.seen = seat


def seat_seen(code: str, actor: Actor) -> None:
    """A message from a seated page: the player is still here. Cheap: one
    UPDATE, no lock, no version bump; the consumer calls it at most every
    SEEN_EVERY seconds per connection."""
    Seat.objects.filter(
        room__code=codes.normalize(code), session_key=actor.session_key, kind=Seat.Kind.HUMAN,
    ).exclude(room__status=Room.Status.CLOSED).update(last_seen=clock.now())


@transaction.atomic
def connection_closed(code: str, actor: Actor) -> None:
    try:
        room = _locked(code)
    except errors.NotFound:
        return
    seat = _seat_of(_seats(room), actor)
    if seat is None:
        return
    was_connected = seat.connected
    seat.connections = max(0, seat.connections - 1)
    seat.last_seen = clock.now()
    if seat.connections == 0:
        seat.disconnected_at = clock.now()
    seat.save(update_fields=["connections", "last_seen", "disconnected_at"])
    # Closing one of several tabs changes nothing anyone sees: no version.
    if seat.connected != was_connected:
        _commit(room, Change(room.id))


# ---- upkeep --------------------------------------------------------------------


def rooms_expire() -> int:
    """Close idle rooms so their codes can be used again (see ``rooms.codes``)."""
    now = clock.now()
    closed = 0
    for status, idle in (
        (Room.Status.LOBBY, LOBBY_IDLE),
        (Room.Status.FINISHED, FINISHED_IDLE),
        (Room.Status.PLAYING, PLAYING_IDLE),
    ):
        for room in Room.objects.filter(status=status, last_activity__lt=now - idle):
            room_close(room.id, reason="Closed after sitting idle")
            closed += 1
    return closed


@transaction.atomic
def room_close(room_id: int, *, reason: str) -> Change | None:
    room = _locked(room_id)
    if room.status == Room.Status.CLOSED:
        return None
    game_row = room.current_game
    change = Change(room.id, [{"type": "closed", "reason": reason}])
    if game_row is not None and game_row.status == Game.Status.IN_PROGRESS:
        game_row.status = Game.Status.ABORTED
        game_row.finished_at = clock.now()
        game_row.deadline = None
        game_row.save()
        _log_table_event(game_row, {"type": "aborted", "reason": reason})
    room.status = Room.Status.CLOSED
    room.closed_reason = reason
    room.autostart_at = None
    return _commit(room, change)


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


# ---- reads used by consumers and views -----------------------------------------


def seat_index_of(code: str, session_key: str) -> int | None:
    room = room_get(code)
    seat = room.seats.filter(kind=Seat.Kind.HUMAN, session_key=session_key).first()
    return seat.index if seat else None


def snapshot_for(code: str, session_key: str) -> dict[str, Any]:
    from .selectors import message_for

    room = room_get(code)
    seats = _seats(room)
    seat = next(
        (s.index for s in seats if s.kind == Seat.Kind.HUMAN and s.session_key == session_key),
        None,
    )
    game_row = current_game(room)
    state = load_state(game_row) if game_row is not None else None
    return message_for("snapshot", room, seats, game_row, state, seat)
