"""Run in its own process on PostgreSQL by test_locking.py: one thread holds a
room's lock and moves its game on while another asks for the same room.
Prints, as JSON, what the waiting command saw once the lock was released:
through ``rooms.rows.lock_room`` and through the ORM's one-query lock-with-join
(for comparison)."""

import json
import os
import threading
import time
import uuid

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import connection, transaction  # noqa: E402

from rooms import rows, services  # noqa: E402
from rooms.models import Room  # noqa: E402

MOVED_ON = 7  # what the lock holder adds to the game's seq


def backend_pid() -> int:
    connection.ensure_connection()
    return connection.connection.info.backend_pid


def waiting_on_a_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row is not None and row[0] == "Lock"


def race(code: str, read_after_waiting) -> dict:
    """The game's seq as ``read_after_waiting`` saw it after waiting for the lock."""
    holding, release, waiter_ready = threading.Event(), threading.Event(), threading.Event()
    out: dict = {}

    def holder():
        with transaction.atomic():
            room = services.locked(code)
            game_row = room.current_game
            out["before"] = game_row.seq
            game_row.seq += MOVED_ON
            rows.save_fields(game_row, ["seq"])
            holding.set()
            release.wait(30)
        connection.close()

    def waiter():
        holding.wait(30)
        out["waiter_pid"] = backend_pid()
        waiter_ready.set()
        with transaction.atomic():
            out["seen"] = read_after_waiting(code)
        connection.close()

    threads = [threading.Thread(target=holder), threading.Thread(target=waiter)]
    for thread in threads:
        thread.start()
    waiter_ready.wait(30)
    deadline = time.monotonic() + 30
    while not waiting_on_a_lock(out["waiter_pid"]):  # polled with a deadline
        if time.monotonic() > deadline:
            raise SystemExit("the second command never waited for the lock")
        time.sleep(0.01)
    out["waited"] = True
    release.set()
    for thread in threads:
        thread.join(30)
    # Put the game back as its log says it is.
    with transaction.atomic():
        game_row = services.locked(code).current_game
        game_row.seq = out["before"]
        rows.save_fields(game_row, ["seq"])
    return out


def orm_lock(code: str) -> int:
    room = (Room.objects.select_related("current_game").select_for_update(of=("self",))
            .exclude(status="closed").get(code=code))
    return room.current_game.seq


def main() -> None:
    host = services.Actor(uuid.uuid4().hex, "Host")
    guest = services.Actor(uuid.uuid4().hex, "Guest")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    services.game_start(room.code, host)
    result = {
        "moved_on": MOVED_ON,
        "rows": race(room.code, lambda code: services.locked(code).current_game.seq),
        "orm_join": race(room.code, orm_lock),
    }
    services.room_close(Room.objects.get(code=room.code, status="playing").id,
                        reason="lock probe done")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
