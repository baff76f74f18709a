"""Run in its own process on PostgreSQL by test_presence_writes.py: presence
marks of several rooms written in one statement (``rooms.rows.mark_seen``).
Prints, as JSON, which seats each write renewed, what psycopg sent on its own
around the write, and what happened to a write that met a seat row a command
held."""

import json
import os
import uuid
from datetime import timedelta

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

import psycopg  # noqa: E402
from django.db import OperationalError, connection  # noqa: E402

from rooms import clock, services  # noqa: E402
from rooms.models import Seat  # noqa: E402
from tests.integration.psycopg_commands import commands_psycopg_sends  # noqa: E402


def actor(name: str) -> services.Actor:
    return services.Actor(f"probe-{name}-{uuid.uuid4().hex}", name)


def table() -> tuple:
    host, guest = actor("Host"), actor("Guest")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    return room, host, guest


def renewed(rooms, since) -> list[list[bool]]:
    return [[seat.last_seen is not None and seat.last_seen > since
             for seat in Seat.objects.filter(room=room, index__lt=2).order_by("index")]
            for room in rooms]


def main() -> None:
    (first, host1, guest1), (second, host2, guest2), (closed, _, guest3) = (
        table(), table(), table())
    services.room_close(closed.id, reason="The probe closed it")
    rooms = [first, second, closed]
    long_ago = clock.now() - timedelta(minutes=5)
    Seat.objects.filter(room__in=rooms).update(last_seen=long_ago)
    out = {}

    with commands_psycopg_sends() as out["sent"]:
        services.seats_seen([(first.code.lower(), host1.session_key),
                             (second.code, guest2.session_key),
                             (closed.code, guest3.session_key),
                             (first.code, "a session with no seat")])
    out["renewed"] = renewed(rooms, long_ago)

    # A command holds the guest's seat row of the first room (its lock, then
    # its writes): the presence write gives way instead of waiting for it.
    Seat.objects.filter(room__in=rooms).update(last_seen=long_ago)
    holder = psycopg.connect(os.environ["DATABASE_URL"])
    seat_id = Seat.objects.get(room=first, index=1).id
    holder.execute(f"SELECT id FROM {Seat._meta.db_table} WHERE id = %s FOR UPDATE", [seat_id])
    try:
        services.seats_seen([(first.code, guest1.session_key), (second.code, host2.session_key)])
        out["held_write"] = "written"
    except OperationalError as exc:
        out["held_write"] = type(exc.__cause__).__name__
        connection.close()
    out["renewed_while_held"] = renewed(rooms, long_ago)
    holder.rollback()
    holder.close()
    services.seats_seen([(first.code, guest1.session_key), (second.code, host2.session_key)])
    out["renewed_after"] = renewed(rooms, long_ago)
    for room in (first, second):
        services.room_close(room.id, reason="The probe is over")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
