"""Run in its own process on PostgreSQL by test_fresh.py: moves computed from
the rows this process kept of a room (rooms.fresh), as a server makes them.
Prints, as JSON, the round trips each move made and what the database held
after it, including after another process changed the room behind the kept
rows."""

import json
import os
import uuid
from datetime import timedelta

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import connection  # noqa: E402

from rooms import clock, errors, fresh, rows, services  # noqa: E402
from rooms.models import Game, MoveLog, Room, Seat  # noqa: E402
from rooms.state import cached_seq  # noqa: E402

_trips: list[str] = []
_send = rows._run_postgresql


def _counted(db, cursor, sql, params, end_transaction):
    text = sql.decode() if isinstance(sql, bytes) else sql
    _trips.append(" | ".join(part.strip().split(" ")[0] for part in text.split("; ")))
    return _send(db, cursor, sql, params, end_transaction)


rows._run_postgresql = _counted


def trips(call) -> list[str]:
    _trips.clear()
    call()
    return list(_trips)


def log_seqs(game_id: int) -> list[int]:
    return list(MoveLog.objects.filter(game_id=game_id).order_by("seq")
                .values_list("seq", flat=True))


def main() -> None:
    out = {}
    host = services.Actor(f"fresh-host-{uuid.uuid4().hex}", "Host")
    guest = services.Actor(f"fresh-guest-{uuid.uuid4().hex}", "Guest")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    services.game_start(room.code, host)
    fresh.listening(room.id)  # as a socket of this process in the room's group

    def play() -> None:
        current = Room.objects.get(pk=room.pk)
        turn = Game.objects.get(pk=current.current_game_id).turn_seat
        services.game_action(room.code, host if turn == 0 else guest, current.version,
                             {"type": "roll"})

    def play_and_return():
        current = Room.objects.get(pk=room.pk)
        turn = Game.objects.get(pk=current.current_game_id).turn_seat
        return services.game_action(room.code, host if turn == 0 else guest, current.version,
                                    {"type": "roll"})

    out["first_move"] = trips(play)  # nothing kept yet: under the lock
    out["kept_move"] = trips(play)
    # A ping marks the guest present without a version (as every ping does):
    # the next move, made from the kept rows, still shows the guest as the
    # database has them.
    # The seat pinged is the one that does not move next: the mover's own
    # action marks it seen (rooms.services.presence.seen), which is a write of
    # this move, not the ping's (a Snakes 6 rolls again, so the mover is not
    # always the same seat).
    pinged = clock.now().replace(microsecond=0) + timedelta(seconds=30)
    waiting = 1 - Game.objects.get(pk=Room.objects.get(pk=room.pk).current_game_id).turn_seat
    Seat.objects.filter(room=room, index=waiting).update(last_seen=pinged)  # as a ping writes
    moved = []
    out["kept_again"] = trips(lambda: moved.append(play_and_return()))
    out["presence_read_again"] = moved[0].seats[waiting].last_seen == pinged
    game = Game.objects.get(pk=Room.objects.get(pk=room.pk).current_game_id)
    out["seqs_contiguous"] = log_seqs(game.id) == list(range(game.seq))
    out["cached_at_seq"] = cached_seq(game.id) == game.seq

    # Another process changes the room: the kept rows are a version behind.
    before = Room.objects.get(pk=room.pk)
    moves_before = MoveLog.objects.filter(game_id=game.id).count()
    with connection.cursor() as cursor:  # autocommit: committed at once
        cursor.execute("UPDATE rooms_room SET version = version + 1 WHERE id = %s", [room.id])
    turn = game.turn_seat
    stale = []

    def act_on_what_was_seen() -> None:
        try:
            services.game_action(room.code, host if turn == 0 else guest, before.version,
                                 {"type": "roll"})
        except errors.StaleVersion:
            stale.append(True)

    out["moved_before"] = fresh.stats["moved"]
    out["behind_trips"] = trips(act_on_what_was_seen)
    out["behind_refused_stale"] = stale == [True]
    out["moved_after"] = fresh.stats["moved"]
    after = Room.objects.get(pk=room.pk)
    out["behind_version_moved"] = after.version - before.version
    out["behind_moves_logged"] = MoveLog.objects.filter(game_id=game.id).count() - moves_before
    out["behind_state_not_cached"] = cached_seq(game.id) == game.seq
    out["next_move"] = trips(play)  # the kept version is not the room's: under the lock
    out["then_kept"] = trips(play)
    game.refresh_from_db()
    out["seqs_contiguous_after"] = log_seqs(game.id) == list(range(game.seq))

    # A computer's move at its deadline, from the kept rows.
    bot_room = services.room_create(actor=host, game="snakes", seats=2)
    services.bot_add(bot_room.code, host)
    services.game_start(bot_room.code, host)
    fresh.listening(bot_room.id)

    fired = []
    for _ in range(40):  # whoever's turn it is plays, until the computer moved twice
        current = Room.objects.get(pk=bot_room.pk)
        game_row = Game.objects.get(pk=current.current_game_id)
        if game_row.status != Game.Status.IN_PROGRESS or len(fired) == 2:
            break
        if game_row.turn_seat == 0:
            services.game_action(bot_room.code, host, current.version, {"type": "roll"})
            continue
        clock.advance((game_row.deadline - clock.now()).total_seconds() + 0.1)
        fired.append(trips(lambda g=game_row: services.deadline_fire(g.id, g.seq)))
    out["computer_fires"] = fired
    bot_game = Game.objects.get(pk=Room.objects.get(pk=bot_room.pk).current_game_id)
    out["computer_seqs_contiguous"] = log_seqs(bot_game.id) == list(range(bot_game.seq))
    out["computer_moves_logged"] = MoveLog.objects.filter(
        game_id=bot_game.id, event__seat=1, event__type="roll").count()
    services.room_close(room.id, reason="The probe is over")
    services.room_close(bot_room.id, reason="The probe is over")
    print(json.dumps(out))


main()
