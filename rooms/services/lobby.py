"""Lobby commands: create and join a room, quick play, seats and seeds, the
host's computer players and house rules, and the start (rooms.services.play)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from games import base as engine_base
from games.bots import make_bot
from games.fairness import new_server_seed, seed_hash, valid_contribution
from games.registry import declaration, get_game

from .. import clock, codes, errors, publish, rows
from ..models import Room, Seat
from ..nicknames import BadNickname, clean_nickname
from .core import (
    QUICK_PLAY_WAIT,
    TABLE_CHOICES,
    Actor,
    Change,
    check_not_banned,
    commit,
    locked,
    locked_seat,
    log_table_event,
    name_for,
    open_seat,
    rearm,
    require_host,
    require_open,
    seat_bot,
    seat_of,
    seats_held,
    seats_of,
)
from .play import start


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
    check_not_banned(actor)
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
    name = name_for(actor)
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
                        clock.now() + timedelta(seconds=getattr(
                            settings, "KHELAGHOR_QUICK_PLAY_WAIT", QUICK_PLAY_WAIT))
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
    allowed = declaration(engine.name).house_rule_names
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


def _quick_play_seats(game: str) -> int:
    try:
        return declaration(game).quick_play_seats
    except KeyError:
        raise errors.BadMessage("Unknown game") from None


def play_now(*, actor: Actor, game: str, pace: str = Room.Pace.NORMAL) -> Room:
    """Quick play: a seat at a public table of ``game`` and ``pace`` that is
    still waiting, or a new one that starts with computer players after a
    short wait. New players may ask for the party pace (30 s a move): those
    tables are a pool of their own, so nobody gets a pace they did not ask for."""
    if pace not in Room.Pace.values:
        raise errors.BadMessage("Pace is normal or party")
    with transaction.atomic():
        waiting = (
            Room.objects.select_for_update()
            .filter(game=game, visibility=Room.Visibility.PUBLIC, status=Room.Status.LOBBY,
                    pace=pace)
            .order_by("created_at")
        )
        for room in waiting:
            seats = seats_of(room)
            if seat_of(seats, actor):
                return room
            if any(s.kind == Seat.Kind.OPEN for s in seats):
                seat_join(room.code, actor)
                return room
    return room_create(
        actor=actor, game=game, seats=_quick_play_seats(game), pace=pace,
        visibility=Room.Visibility.PUBLIC,
    )


@transaction.atomic
def seat_join(
    code: str, actor: Actor, seat: int | None = None, client_seed: str | None = None,
    *, over_socket: bool = False,
):
    check_not_banned(actor)
    room = locked(code)
    require_open(room)
    seats = seats_of(room)
    mine = seat_of(seats, actor)
    name = name_for(actor)
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
    rows.save_fields(target, ["kind", "session_key", "user", "name", "connections", "last_seen"])
    if client_seed is not None:
        _set_seed(target, client_seed)
    return commit(room, Change(room.id, [{"type": "joined", "seat": target.index}]))


def _free_seat(seats: list[Seat], wanted: Any) -> Seat:
    """The seat asked for, which must be open, or the lowest open one."""
    if wanted is None:
        target = next((s for s in seats if s.kind == Seat.Kind.OPEN), None)
        if target is None:
            raise errors.RoomFull("Every seat is taken")
        return target
    if not isinstance(wanted, int) or isinstance(wanted, bool):
        raise errors.BadMessage("A seat is given by its number, counted from 0")
    if not 0 <= wanted < len(seats):
        raise errors.BadMessage("There is no such seat")
    if seats[wanted].kind != Seat.Kind.OPEN:
        raise errors.SeatTaken("That seat is taken")
    return seats[wanted]


def _set_seed(seat: Seat, client_seed: str) -> None:
    if not valid_contribution(client_seed):
        raise errors.BadMessage("A client seed is 1 to 64 letters, digits, - or _")
    seat.client_seed = client_seed
    rows.save_fields(seat, ["client_seed"])


@transaction.atomic
def seat_seed(code: str, actor: Actor, client_seed: str) -> Change:
    room, _, seat = locked_seat(code, actor, "Take a seat first")
    if room.status == Room.Status.PLAYING:
        raise errors.WrongStatus("The dice of this game are already fixed")
    _set_seed(seat, client_seed)
    return Change(room.id)  # nothing others need to see


@transaction.atomic
def seat_leave(code: str, actor: Actor) -> Change:
    room, seats, seat = locked_seat(code, actor, "You have no seat here")
    if room.status == Room.Status.PLAYING:
        # Mid-game a computer holds the seat; the player may come back.
        if not seat.held:  # a second "leave" from a held seat goes on with the same hold
            seat.held_moves = 0  # the turns of this hold are counted from now
        seat.held = True
        rows.save_fields(seat, ["held", "held_moves"])
        change = Change(room.id, [{"type": "takeover", "seat": seat.index}])
        game_row = room.current_game
        log_table_event(game_row, {"type": "takeover", "seat": seat.index, "reason": "left"})
        rearm(room, game_row, seats)
        return commit(room, change)
    if seat.index == 0:
        # There is no command that closes a room: a host who goes away is
        # replaced (take_host), and a room nobody uses closes by itself.
        raise errors.WrongStatus("The host keeps the first seat; to go, just leave the room: "
                                 "another player can become the host")
    open_seat(seat)
    return commit(room, Change(room.id, [{"type": "left", "seat": seat.index}]))


@transaction.atomic
def bot_add(code: str, actor: Actor, seat: int | None = None, kind: str | None = None) -> Change:
    """The host seats a computer of ``kind`` (the game's standard one if not given)."""
    room = locked(code)
    if kind is None:
        kind = declaration(room.game).standard_bot
    seats = seats_of(room)
    require_host(seats, actor)
    if room.status != Room.Status.LOBBY:
        raise errors.WrongStatus("Computer players join before the start")
    if not isinstance(kind, str) or kind.startswith("external"):
        raise errors.BadMessage("Unknown computer player")
    try:
        make_bot(room.game, kind)
    except ValueError:
        raise errors.BadMessage("Unknown computer player") from None
    target = _free_seat(seats, seat)
    seat_bot(target, kind)
    return commit(room, Change(room.id, [{"type": "joined", "seat": target.index}]))


@transaction.atomic
def bot_remove(code: str, actor: Actor, seat: int) -> Change:
    room = locked(code)
    seats = seats_of(room)
    require_host(seats, actor)
    if room.status != Room.Status.LOBBY:
        raise errors.WrongStatus("Computer players leave before the start")
    if not isinstance(seat, int) or not 0 <= seat < len(seats) or seats[seat].kind != "bot":
        raise errors.BadMessage("That seat has no computer player")
    open_seat(seats[seat])
    return commit(room, Change(room.id, [{"type": "left", "seat": seat}]))


@transaction.atomic
def seat_free(code: str, actor: Actor, seat: Any) -> Change:
    """The host of a private table opens the seat of a player who went away in
    the lobby (closed the page, or not heard from for 40 s), so that another
    friend can sit there. A player who is here keeps their seat: only they
    may leave it. They can sit again while the seat stays open."""
    room = locked(code)
    seats = seats_of(room)
    require_host(seats, actor)
    if room.status != Room.Status.LOBBY or room.visibility != Room.Visibility.PRIVATE:
        raise errors.WrongStatus("A seat is freed in the lobby of a private table")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 < seat < len(seats):
        raise errors.BadMessage("That seat has no other player")
    target = seats[seat]
    if target.kind != Seat.Kind.HUMAN or target.on_device:
        raise errors.BadMessage("That seat has no other player")
    if target.connected:
        raise errors.WrongStatus("{name} is here; only a player who is away can be moved",
                                 name=target.name)
    open_seat(target)
    return commit(room, Change(room.id, [{"type": "left", "seat": seat}]))


# What a seat holds of its player: all of it moves when two players swap seats.
PLAYER_FIELDS = ["kind", "session_key", "user", "name", "bot_kind", "held", "on_device",
                 "connections", "last_seen", "disconnected_at", "consecutive_timeouts",
                 "client_seed"]


@transaction.atomic
def host_take(code: str, actor: Actor) -> Change:
    """A seated friend takes the host's place when the host has gone away
    from the lobby of a private table, or from its results: only seat 0
    starts a game or a rematch, so the others waited for nobody until the
    room expired (a host who left the game mid-way left them so). The two
    swap seats; the old host keeps the friend's former seat, may come back
    to it, and the new host may free it in the lobby (seat_free)."""
    room = locked(code)
    seats = seats_of(room)
    mine = seat_of(seats, actor)
    if mine is None:
        raise errors.NotSeated("Take a seat first")
    between_games = room.status in (Room.Status.LOBBY, Room.Status.FINISHED)
    if not between_games or room.visibility != Room.Visibility.PRIVATE:
        raise errors.WrongStatus("The host is changed between games at a private table")
    if mine.index == 0:
        raise errors.BadMessage("You are the host")
    host = seats[0]
    if host.connected:
        raise errors.WrongStatus("{name} is here and stays the host", name=host.name)
    if any(seat.on_device for seat in seats):
        # Their seats belong to the host's phone, which is away with its host.
        raise errors.WrongStatus("Players on the host's phone sit at this table")
    for field in PLAYER_FIELDS:
        attribute = Seat._meta.get_field(field).attname  # user_id: no query for the user
        here, there = getattr(host, attribute), getattr(mine, attribute)
        setattr(host, attribute, there)
        setattr(mine, attribute, here)
    rows.save_fields(host, PLAYER_FIELDS)
    rows.save_fields(mine, PLAYER_FIELDS)
    return commit(room, Change(room.id, [{"type": "host", "seat": 0, "from": mine.index}]))


@transaction.atomic
def device_player_add(code: str, actor: Actor, seat: int | None, name: Any) -> Change:
    """Pass and play: the host seats a player who shares the host's phone. The
    seat is the host session's, with its own name; it is never rated (one
    phone, one rating), so quick-play and rated tables refuse it."""
    room = locked(code)
    seats = seats_of(room)
    require_host(seats, actor)
    _check_device_table(room)
    try:
        name = clean_nickname(name)
    except BadNickname as exc:  # already in the page's language (rooms.consumers)
        raise errors.BadMessage(str(exc)) from None
    # An open seat: so at most seats - 1 players share the host's phone.
    target = _free_seat(seats, seat)
    target.kind = Seat.Kind.HUMAN
    target.session_key = actor.session_key
    target.user_id = None
    target.name = name
    target.on_device = True
    # Present exactly when the host's page is: the phone is the same.
    host = seat_of(seats, actor)
    target.connections, target.last_seen = host.connections, host.last_seen
    rows.save_fields(target, ["kind", "session_key", "user", "name", "on_device",
                              "connections", "last_seen"])
    return commit(room, Change(room.id, [{"type": "joined", "seat": target.index}]))


def _check_device_table(room: Room) -> None:
    if room.status != Room.Status.LOBBY:
        raise errors.WrongStatus("Players on this phone join before the start")
    if room.visibility != Room.Visibility.PRIVATE:
        raise errors.WrongStatus("Players on this phone are for private tables")
    if room.options.get("rated"):
        raise errors.WrongStatus("A rated table has one player per phone")


@transaction.atomic
def device_player_remove(code: str, actor: Actor, seat: Any) -> Change:
    room = locked(code)
    seats = seats_of(room)
    require_host(seats, actor)
    if room.status != Room.Status.LOBBY:
        raise errors.WrongStatus("Players on this phone leave before the start")
    mine = {s.index for s in seats_held(seats, actor) if s.on_device}
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in mine:
        raise errors.BadMessage("That seat has no player on this phone")
    open_seat(seats[seat])
    return commit(room, Change(room.id, [{"type": "left", "seat": seat}]))


@transaction.atomic
def options_set(code: str, actor: Actor, options: dict[str, Any] | None, pace: str | None):
    room = locked(code)
    seats = seats_of(room)
    require_host(seats, actor)
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
        kept = (*declaration(room.game).house_rule_names, *TABLE_CHOICES)
        merged = {k: v for k, v in room.options.items() if k in kept}
        merged.update(options)
        if merged.get("rated") and any(s.on_device for s in seats):
            raise errors.WrongStatus("A rated table has one player per phone")
        room.options = _house_rules(engine, len(seats), merged, private=True)
    return commit(room, Change(room.id), room_fields=("pace", "options"))


@transaction.atomic
def game_start(code: str, actor: Actor | None) -> Change:
    """Start (or, after the results, rematch): a new game with the room's seats."""
    room = locked(code)
    seats = seats_of(room)
    if actor is not None:
        require_host(seats, actor)
    return start(room, seats)
