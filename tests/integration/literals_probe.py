"""Run in its own process on PostgreSQL by test_literals.py: the statements
``rooms.rows.run`` sends with their values written in (``rows._bound``) read
back exactly what psycopg's own binding reads back, for every kind of value a
move carries and the awkward ones a player can type. Prints JSON."""

import json
import os
import uuid
from datetime import UTC, datetime, timedelta, timezone

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import DataError, connection, transaction  # noqa: E402

from rooms import rows, services  # noqa: E402
from rooms.models import Game, Seat  # noqa: E402

AWKWARD_TEXT = [
    "", "plain", "it's", "O''Neil", "back\\slash", "\\'", "%s", "%%", "%(name)s",
    "খেলাঘর ১২৩", "emoji 🎲🐍", "tab\tnew\nline", "quote\"double", "E'\\x41'", "--",
    "); DROP TABLE rooms_room; --",
]
JSON_FIELD = Game._meta.get_field("options")
WHEN_FIELD = Seat._meta.get_field("last_seen")


def values():
    """(label, value as the field preparations hand it to the cursor)."""
    out = [(f"text {i}", text) for i, text in enumerate(AWKWARD_TEXT)]
    out += [("none", None), ("true", True), ("false", False), ("zero", 0), ("negative", -7),
            ("big", 2**62), ("kind", Seat.Kind.HUMAN)]
    for when in [datetime(2026, 12, 1, 7, 30, 15, 123456, tzinfo=UTC),
                 datetime(2026, 12, 1, 13, 0, tzinfo=timezone(timedelta(hours=6))),
                 datetime(1999, 1, 1, tzinfo=timezone(timedelta(hours=-3, minutes=-30)))]:
        out.append((f"time {when.isoformat()}", WHEN_FIELD.get_db_prep_save(when, connection)))
    for i, obj in enumerate([{}, [], {"name": "it's \\ \"x\" ১"}, {"nested": [1, None, True, 2.5]},
                             {"%s": "%(x)s"}, "a string", 7]):
        out.append((f"json {i}", JSON_FIELD.get_db_prep_save(obj, connection)))
    return out


def main() -> None:
    out = {"kinds": {}, "mismatches": [], "bound": 0}
    bound = rows._bound
    written = []

    def counting(statements, escape):
        result = bound(statements, escape)
        written.append(result is not None)
        return result

    rows._bound = counting
    for label, value in values():
        (ours,) = rows.run([("SELECT %s", [value])])
        with connection.cursor() as cursor:  # Django's cursor: psycopg binds
            cursor.execute("SELECT %s", [value])
            theirs = cursor.fetchall()
        if ours != theirs:
            out["mismatches"].append([label, repr(ours), repr(theirs)])
        out["kinds"][label] = type(ours[0][0]).__name__
    out["bound"] = sum(written)
    out["statements"] = len(written)

    # A write and its read-back through the lean lock, with a name a player typed.
    host = services.Actor(f"probe-host-{uuid.uuid4().hex}", "Host")
    room = services.room_create(actor=host, game="snakes", seats=2)
    seat = Seat.objects.get(room=room, index=0)
    seat.name = "মিতা's \\ %s 🎲"
    seat.last_seen = datetime(2026, 12, 1, 7, 0, tzinfo=timezone(timedelta(hours=6)))
    with transaction.atomic():
        rows.save_fields(seat, ["name", "last_seen"])
    with transaction.atomic():
        locked = rows.lock_room(open_only=True, code=room.code)
    stored = locked.locked_seats[0]
    out["name_kept"] = stored.name == seat.name == Seat.objects.get(pk=seat.pk).name
    out["time_kept"] = stored.last_seen == seat.last_seen

    # Every field of a room, its game and its seats, as the lock reads them,
    # prepared for an UPDATE as Django's own save prepares it.
    guest = services.Actor(f"probe-guest-{uuid.uuid4().hex}", "Guest")
    services.seat_join(room.code, guest)
    services.game_start(room.code, host)
    with transaction.atomic():
        locked = rows.lock_room(open_only=True, code=room.code)
    out["prepared_unlike_django"] = []
    out["prepared_fields"] = 0
    for instance in [locked, locked.current_game, *locked.locked_seats]:
        names = [f.name for f in type(instance)._meta.concrete_fields if not f.primary_key]
        _, ours = rows.update_statement(instance, names)
        for name, value in zip(names, ours, strict=False):
            model_field = type(instance)._meta.get_field(name)
            theirs = model_field.get_db_prep_save(model_field.pre_save(instance, False), connection)
            out["prepared_fields"] += 1
            if repr(value) != repr(theirs) and value != theirs:
                out["prepared_unlike_django"].append([name, repr(value), repr(theirs)])

    # A NUL cannot be stored in PostgreSQL text: psycopg's own error, the
    # transaction rolled back and the connection usable after it.
    try:
        with transaction.atomic():
            rows.run([("UPDATE rooms_seat SET name = %s WHERE id = %s", ["a\x00b", seat.pk])])
        out["nul"] = "stored"
    except DataError as exc:
        out["nul"] = type(exc).__name__
    out["after_nul"] = Seat.objects.get(pk=seat.pk).name == seat.name

    # The kept cursor follows the connection: a new connection, a new cursor.
    rows.run([("SELECT 1", [])])
    first = rows._kept_cursor(connection)[0]
    connection.close()
    rows.run([("SELECT 1", [])])
    second = rows._kept_cursor(connection)[0]
    out["new_cursor_for_new_connection"] = (second is not first
                                            and second.connection is connection.connection)
    services.room_close(room.id, reason="The probe is over")
    print(json.dumps(out))


main()
