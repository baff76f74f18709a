"""Play commands: the start, a player's action, a reclaimed seat, a deadline
that fired, a public table that starts itself; and what the table applies on
its own (deals, forced moves, computers without a pause) and the finish."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import transaction

from accounts_optional import ratings
from config.logfilters import REDIS_AWAY_NOTE
from games import base as engine_base
from games.bots import make_bot
from games.fairness import DiceStream, combine_client_seed, new_server_seed, seed_hash
from games.registry import declaration, get_game

from .. import clock, errors, fresh, publish, rows
from ..models import Game, Room, Seat
from ..state import load_state, remember
from ..timers import get_timer_backend
from .core import (
    AWAY_FOR_TAKEOVER,
    TIMEOUTS_FOR_TAKEOVER,
    Actor,
    Change,
    bot_delay,
    commit,
    engine_options,
    held_seat,
    locked,
    locked_where,
    log_table_event,
    rearm,
    require_open,
    seat_bot,
    seat_of,
    seats_of,
    set_deadline,
)
from .presence import seen

log = logging.getLogger(__name__)


def start(room: Room, seats: list[Seat]) -> Change:
    if room.status not in (Room.Status.LOBBY, Room.Status.FINISHED):
        raise errors.WrongStatus("A game is already being played")
    if any(s.kind == Seat.Kind.OPEN for s in seats):
        raise errors.WrongStatus("Fill every seat with a player or a computer first")
    engine = get_game(room.game)
    options = engine.resolve_options(len(seats), engine_options(room))
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
    for seat in seats:
        seat.consecutive_timeouts = 0
        seat.held = False
        seat.client_seed = ""
        rows.save_fields(seat, ["consecutive_timeouts", "held", "client_seed"])
    remember(game_row, state)
    change = Change(room.id, [{"type": "started", "game": game_row.number}], seats, game_row)
    change.state = _run_automatic(room, game_row, seats, state, change)
    return commit(room, change,
                  room_fields=("next_server_seed", "next_server_seed_hash", "current_game"))


def _engine_error(exc: engine_base.GameError, seats: list[Seat]) -> errors.RoomError:
    return errors.from_engine(exc, [s.name for s in seats])


def _clean_action(action: Any) -> dict[str, Any]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise errors.BadMessage("An action is an object with a type")
    # Clients never choose dice: the table draws them.
    return {k: v for k, v in action.items() if k != "dice"}


def game_action(code: str, actor: Actor, version: Any, action: Any, seat: Any = None) -> Change:
    """``actor`` plays ``action`` for ``seat``: one the session plays (pass and
    play), its own when None. Computed from the rows this process kept of the
    room when it has them (rooms.fresh), else, or when those have moved on,
    from the room read under its lock."""
    kept = fresh.room_for_action(code, version) if isinstance(version, int) else None
    return _from_kept_or_locked(
        kept, lambda room: _act(room, actor, version, action, seat),
        lambda: _act_locked(code, actor, version, action, seat))


def _from_kept_or_locked(kept: Room | None, command: Callable[[Room], Any],
                         under_lock: Callable[[], Any]) -> Any:
    """``command`` run on ``kept`` (the room built from the rows this process
    kept, rooms.fresh) behind the guard, or ``under_lock()`` when nothing is
    kept or the guard finds that the room has moved on: then the whole command
    is rolled back and done again from the room read under its lock."""
    if kept is not None:
        try:
            with transaction.atomic(), fresh.guarded(kept):
                return command(kept)
        except rows.Moved:
            fresh.stats["moved"] += 1
    return under_lock()


@transaction.atomic
def _act_locked(code: str, actor: Actor, version: Any, action: Any, seat: Any) -> Change:
    return _act(locked(code), actor, version, action, seat)


def _act(room: Room, actor: Actor, version: Any, action: Any, seat: Any) -> Change:
    require_open(room)
    if room.status != Room.Status.PLAYING:
        raise errors.WrongStatus("No game is being played")
    if version != room.version:
        raise errors.StaleVersion("The table has moved on; here is the current state")
    action = _clean_action(action)
    seats = seats_of(room)
    seat = held_seat(seats, actor, seat)
    game_row = room.current_game
    state = load_state(game_row)
    engine = get_game(game_row.game)
    turn = engine.turn(state)
    change = Change(room.id)
    seen(seat, change)
    if seat.held:
        _reclaim(room, game_row, seat, change)
    try:
        if turn is None:
            raise engine_base.IllegalAction("The game is over")
        # The engine judges turn order too: its refusals name the player to wait for.
        state = _apply(room, game_row, seats, state, seat.index, action, change)
    except engine_base.GameError as exc:
        if change.events:  # the reclaim stands even when the action cannot...
            rearm(room, game_row, seats)  # ...and the decision gets a human's time
            change.refusal = _engine_error(exc, seats)
            return commit(room, change, ends_command=True)
        raise _engine_error(exc, seats) from None
    if seat.consecutive_timeouts:
        seat.consecutive_timeouts = 0
        rows.save_fields(seat, ["consecutive_timeouts"])
    change.seats, change.game_row = seats, game_row
    change.state = _run_automatic(room, game_row, seats, state, change)
    return _moved(room, change)


def _moved(room: Room, change: Change) -> Change:
    """Commit a move, and keep the room's rows for its next (rooms.fresh)."""
    commit(room, change, ends_command=True)
    fresh.keep_on_commit(room, change.game_row, change.seats)
    return change


def _reclaim(room: Room, game_row: Game, seat: Seat, change: Change) -> None:
    seat.held = False
    seat.consecutive_timeouts = 0
    rows.save_fields(seat, ["held", "consecutive_timeouts"])
    event = {"type": "reclaim", "seat": seat.index}
    log_table_event(game_row, event)
    change.events.append(event)
    _note_on_commit("room %s game %s: seat %d taken back from the computer", room.code,
                    game_row.id, seat.index)


def _note_on_commit(message: str, *args: Any) -> None:
    """An operator's line (a timeout, a takeover, a seat taken back), written
    once the change it tells of is stored: a rolled-back fire says nothing.
    Seats are numbered, never named: the log holds no player's nickname."""
    transaction.on_commit(lambda: log.info(message, *args))


@transaction.atomic
def seat_reclaim(code: str, actor: Actor, seat: Any = None) -> Change:
    """Take back a held seat: the session's own, or ``seat`` on its device."""
    room = locked(code)
    seats = seats_of(room)
    if seat is None:
        seat = seat_of(seats, actor)
        if seat is None:
            raise errors.NotSeated("You have no seat here")
    else:
        seat = held_seat(seats, actor, seat)
    change = Change(room.id)
    if seat.held and room.status == Room.Status.PLAYING:
        game_row = room.current_game
        _reclaim(room, game_row, seat, change)
        rearm(room, game_row, seats)
    return commit(room, change)


def _draw(game_row: Game, count: int) -> list[int]:
    stream = DiceStream(bytes.fromhex(game_row.server_seed), game_row.client_seed,
                        game_row.nonce)
    dice = stream.draw(count)
    game_row.nonce = stream.nonce
    return dice


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
    remember(game_row, new_state)
    return new_state


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
        elif (instant_bots or only_computers_to_place(game_row, state, seats)) and (
            seats[turn.seat].kind == Seat.Kind.BOT or seats[turn.seat].held
        ):
            action = _computer_choice(game_row, engine, state, turn, seats[turn.seat])
            _count_if_held(seats[turn.seat], change)
            state = _apply(room, game_row, seats, state, turn.seat, action, change)
        else:
            break
    change.deadline = set_deadline(room, game_row, seats, turn)
    change.game_row = game_row
    change.game_fields.update(("seq", "nonce", "turn_seat", "deadline", "deadline_kind"))
    return state



def only_computers_to_place(game_row: Game, state: Any, seats: list[Seat]) -> bool:
    """Every seat still to be placed is played by a computer: a computer seat,
    or a held seat whose player is not here to take it back (they left, or are
    away). Then the automatic moves play the rest in this command: every roll is
    drawn from the fair stream and written to the record as usual, and the
    people still watching get the result in one update instead of waiting
    ``bot_delay`` per roll. Someone still to be placed keeps the normal pace."""
    if not declaration(game_row.game).finish_at_once:
        return False
    placed = set(get_game(game_row.game).placings(state))
    waiting = [s for s in seats if s.index not in placed]
    return bool(waiting) and all(
        s.kind == Seat.Kind.BOT or (s.held and not s.connected) for s in waiting
    )


def _finish(room: Room, game_row: Game, state: Any, change: Change) -> None:
    engine = get_game(game_row.game)
    game_row.status = Game.Status.FINISHED
    game_row.placings = engine.placings(state)
    game_row.finished_at = clock.now()
    game_row.deadline = None
    game_row.turn_seat = None
    change.game_fields.update(("status", "placings", "finished_at", "deadline", "turn_seat"))
    room.status = Room.Status.FINISHED
    change.events.append({"type": "finished", "placings": game_row.placings})
    ratings.game_finished(room, game_row, seats_of(room))  # after commit, off the move path


def deadline_fire(game_id: int, seq: int) -> Change | None:
    """The timer says game ``game_id`` reached its deadline at ``seq``. Acts
    exactly once: a stale or repeated call finds another seq and does nothing.
    A computer's move is computed from the rows this process kept of the room
    when it has them (rooms.fresh), as a player's action is."""
    return _from_kept_or_locked(fresh.room_for_deadline(game_id, seq),
                                lambda room: _fire(room, game_id, seq),
                                lambda: _fire_locked(game_id, seq))


@transaction.atomic
def _fire_locked(game_id: int, seq: int) -> Change | None:
    try:
        # Only a room's current game has deadlines; an older game's finds nothing.
        room = locked_where(current_game_id=game_id)
    except errors.NotFound:
        return None
    return _fire(room, game_id, seq)


def _fire(room: Room, game_id: int, seq: int) -> Change | None:
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
    seats = seats_of(room)
    engine = get_game(game_row.game)
    state = load_state(game_row)
    turn = engine.turn(state)
    if turn is None or turn.seat is None:
        return None
    seat = seats[turn.seat]
    if _action_claimed(room, game_row, seat):
        # The player's action was read before the deadline and waits for a
        # database thread: it wins; look again shortly (docs/protocol.md).
        publish.arm_game_on_commit(game_id, seq, now + timedelta(seconds=CLAIM_GRACE_SECONDS))
        return None
    change = Change(room.id)
    if seat.kind == Seat.Kind.HUMAN and not seat.held:
        seat.consecutive_timeouts += 1
        timeout = {"type": "timeout", "seat": seat.index}
        log_table_event(game_row, timeout)
        change.events.append(timeout)
        away = seat.away_seconds(now) >= AWAY_FOR_TAKEOVER
        if seat.consecutive_timeouts >= TIMEOUTS_FOR_TAKEOVER or away:
            seat.held = True
            seat.held_moves = 0  # counted from here: the turn that timed out is the first
            takeover = {"type": "takeover", "seat": seat.index}
            log_table_event(game_row, takeover)
            change.events.append(takeover)
        rows.save_fields(seat, ["consecutive_timeouts", "held", "held_moves"])
        _note_on_commit(
            "room %s game %s: seat %d timed out (%d in a row%s)%s", room.code, game_row.id,
            seat.index, seat.consecutive_timeouts, ", away" if away else "",
            "; a computer holds the seat" if seat.held else "")
    action = _computer_choice(game_row, engine, state, turn, seat)
    _count_if_held(seat, change)
    state = _apply(room, game_row, seats, state, turn.seat, action, change)
    change.seats, change.game_row = seats, game_row
    change.state = _run_automatic(room, game_row, seats, state, change)
    return _moved(room, change)



# Seconds a deadline waits, again and again, while the turn's player holds an
# action claim (rooms.timers.CLAIM_TTL_SECONDS bounds the total).
CLAIM_GRACE_SECONDS = 0.5


def _action_claimed(room: Room, game_row: Game, seat: Seat) -> bool:
    """Whether ``seat``'s player sent an action for the room's current version
    that the server read before the deadline and has not finished with: the
    room socket records one (rooms.consumers) before the command queues."""
    if seat.kind != Seat.Kind.HUMAN:
        return False
    try:
        claim = get_timer_backend().action_claim(room.id, seat.session_key)
    except Exception:  # Redis is away: deadlines go on as before (the sweep fires them)
        log.warning("action claims unavailable; deadline of game %s fires", game_row.id,
                    extra=REDIS_AWAY_NOTE)
        return False
    if claim is None:
        return False
    version, received_ts = claim
    return version == room.version and received_ts <= game_row.deadline.timestamp()


def _count_if_held(seat: Seat, change: Change) -> None:
    """A computer has just chosen ``seat``'s action: on a held seat that is one
    more turn played for its player (``Seat.held_moves``), who is told of them
    when they come back. Not counted: a computer's own seat, and a timeout's
    move for a player still in their seat. The moves the table makes for
    everyone (forced moves, deals) never come here."""
    if seat.held:
        seat.held_moves += 1
        change.counted[seat.index] = seat


def _computer_choice(game_row: Game, engine, state, turn, seat: Seat) -> dict[str, Any]:
    """What a computer does in ``seat``: its own kind on a computer seat, the
    game's standard player for a human who timed out or whose seat is held. It sees
    only that seat's view."""
    if turn.dice:
        return {"type": "roll"}
    kind = seat.bot_kind if seat.kind == Seat.Kind.BOT else declaration(game_row.game).standard_bot
    bot = make_bot(game_row.game, kind)
    rng = random.Random(f"{game_row.id}:{game_row.seq}")
    return bot.choose(
        engine.view_for(state, turn.seat), engine.legal_actions(state, turn.seat), rng
    )


@transaction.atomic
def room_autostart(room_id: int) -> Change | None:
    """A public table that waited long enough: computers fill the empty seats and it starts."""
    try:
        room = locked(room_id)
    except errors.NotFound:
        return None
    if room.status != Room.Status.LOBBY or room.autostart_at is None:
        return None
    if clock.now() < room.autostart_at - timedelta(milliseconds=20):
        return None
    seats = seats_of(room)
    if not any(s.kind == Seat.Kind.HUMAN for s in seats):
        return None
    for seat in seats:
        if seat.kind == Seat.Kind.OPEN:
            seat_bot(seat, declaration(room.game).standard_bot)
    return start(room, seats)


@transaction.atomic
def room_start_now(code: str, actor: Actor) -> Change:
    """Quick play without the wait ("Play now with computers"): any seated
    player of a public table still in its lobby fills the empty seats with
    computers, as the automatic start would, and the game starts at once."""
    room = locked(code)
    seats = seats_of(room)
    if seat_of(seats, actor) is None:
        raise errors.NotSeated("Take a seat first")
    if room.visibility != Room.Visibility.PUBLIC:
        raise errors.WrongStatus(
            "Only a quick-play table starts at once; here the host starts the game"
        )
    if room.status != Room.Status.LOBBY:
        raise errors.WrongStatus("The game has already started")
    for seat in seats:
        if seat.kind == Seat.Kind.OPEN:
            seat_bot(seat, declaration(room.game).standard_bot)
    return start(room, seats)
