"""Run in its own process on PostgreSQL by test_round_trips.py: which
transaction commands psycopg sends on its own around a move. Prints, as JSON,
what a plain ``atomic`` block sent (the counter's own check), what a move sent,
and whether the move and a refused move left the database as they should."""

import json
import os
import uuid

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import transaction  # noqa: E402

from rooms import errors, services  # noqa: E402
from rooms.models import MoveLog, Room  # noqa: E402
from tests.integration.psycopg_commands import commands_psycopg_sends  # noqa: E402


def main() -> None:
    host = services.Actor(f"probe-host-{uuid.uuid4().hex}", "Host")
    guest = services.Actor(f"probe-guest-{uuid.uuid4().hex}", "Guest")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    services.game_start(room.code, host)
    room.refresh_from_db()
    out = {}
    with commands_psycopg_sends() as out["plain_atomic"], transaction.atomic():
        Room.objects.filter(pk=room.pk).count()
    moves_before = MoveLog.objects.filter(game__room=room).count()
    turn = services.current_game(room).turn_seat
    with commands_psycopg_sends() as out["move"]:
        services.game_action(room.code, host if turn == 0 else guest, room.version,
                             {"type": "roll"})
    room_after = Room.objects.get(pk=room.pk)
    out["version_moved"] = room_after.version - room.version
    out["moves_logged"] = MoveLog.objects.filter(game__room=room).count() - moves_before
    with commands_psycopg_sends() as out["refused"]:
        try:
            services.game_action(room.code, host, room.version, {"type": "roll"})  # stale
            out["stale_refused"] = False
        except errors.StaleVersion:
            out["stale_refused"] = True
    out["version_after_refusal"] = Room.objects.get(pk=room.pk).version - room_after.version
    services.room_close(room.id, reason="The probe is over")
    print(json.dumps(out))


main()
