"""Finished games in the database, made from simulated records, and live rooms.

``stored_game`` turns a ``games.simulate.simulate_record`` record into the rows
a live table would have left (room, seats, game, move log), so the history
pages can be tested for all three games without playing them move by move.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from games.simulate import simulate_record
from rooms import codes, services
from rooms.models import Game, MoveLog, Room, Seat
from rooms.services import Actor
from tests.room_fixtures import person

SPECS = {"liars_dice": ["standard", "standard", "standard"],
         "ludo": ["standard", "standard"], "snakes": ["standard", "standard", "standard"]}


def record_for(game: str, seed: int = 7) -> dict:
    return simulate_record(game, SPECS[game], seed=seed)


def stored_game(record: dict, *, humans: dict[int, str] | None = None, users=None,
                names: dict[int, str] | None = None, status: str = "finished") -> Game:
    """Rows for a game that is over. ``humans`` maps seat -> session key: those
    seats are human seats of that guest (``users`` maps seat -> user)."""
    humans = humans or {}
    users = users or {}
    names = names or {}
    code = next(c for c in iter(codes.random_code, None)
                if not Room.objects.filter(code=c).exclude(status="closed").exists())
    room = Room.objects.create(code=code, game=record["game"], status=Room.Status.FINISHED,
                               next_server_seed="00" * 32, next_server_seed_hash="x")
    seats = []
    for entry in record["seats"]:
        index = entry["seat"]
        human = index in humans
        name = names.get(index, entry["name"])
        Seat.objects.create(room=room, index=index,
                            kind=Seat.Kind.HUMAN if human else Seat.Kind.BOT,
                            session_key=humans.get(index, ""), user=users.get(index),
                            name=name, bot_kind="" if human else "standard")
        seat = {k: v for k, v in entry.items() if k != "bot"} if human else dict(entry)
        seat.update(kind="human" if human else "bot", name=name)
        seats.append(seat)
    now = timezone.now()
    game_row = Game.objects.create(
        room=room, number=1, game=record["game"], options=record["options"], seats=seats,
        server_seed=record["fairness"]["server_seed"],
        server_seed_hash=record["fairness"]["server_seed_hash"],
        client_seed=record["fairness"]["client_seed"], seq=len(record["events"]),
        status=status, placings=record["placings"] if status == "finished" else [],
        finished_at=now,
    )
    Game.objects.filter(id=game_row.id).update(started_at=now - timedelta(minutes=12))
    MoveLog.objects.bulk_create(
        [MoveLog(game=game_row, seq=i, event=e) for i, e in enumerate(record["events"])]
    )
    game_row.refresh_from_db()
    return game_row


def playing_room(game: str = "snakes", seats: int = 2) -> tuple[Room, Actor, Actor]:
    """A room in play: host (seat 0) and a guest (seat 1), the rest computers."""
    host, guest = person("Tanvir"), person("রুমি")
    room = services.room_create(actor=host, game=game, seats=seats)
    services.seat_join(room.code, guest)
    for _ in range(seats - 2):
        services.bot_add(room.code, host)
    services.game_start(room.code, host)
    room.refresh_from_db()
    return room, host, guest


def lobby_room(game: str = "snakes", seats: int = 3) -> tuple[Room, Actor, Actor]:
    host, guest = person("Tanvir"), person("রুমি")
    room = services.room_create(actor=host, game=game, seats=seats)
    services.seat_join(room.code, guest)
    room.refresh_from_db()
    return room, host, guest


def play_out(room: Room, players: list[Actor], limit: int = 5000) -> Game:
    """Play a started room to its end: humans roll/take their first legal action,
    computers play at once (KHELAGHOR_BOT_DELAY = 0)."""
    from games.registry import get_game

    for _ in range(limit):
        room.refresh_from_db()
        game_row = services.current_game(room)
        if game_row.status != Game.Status.IN_PROGRESS:
            return game_row
        state = services.load_state(game_row)
        engine = get_game(game_row.game)
        turn = engine.turn(state)
        who = next(p for p in players
                   if room.seats.get(index=turn.seat).session_key == p.session_key)
        action = engine.legal_actions(state, turn.seat)[0]
        services.game_action(room.code, who, room.version, action)
    raise AssertionError("the game did not end")
