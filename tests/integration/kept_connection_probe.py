"""Run in its own process on PostgreSQL by test_kept_connection.py: a command
thread keeps its connection between commands, and when PostgreSQL has closed
that connection meanwhile (here: pg_terminate_backend, as a restart would) the
next command still succeeds, on a fresh one. Prints the backend pids as JSON."""

import asyncio
import json
import os
from concurrent.futures import ThreadPoolExecutor

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import connection  # noqa: E402

from rooms.consumers import CommandSyncToAsync  # noqa: E402
from rooms.models import Room  # noqa: E402


def command() -> int:
    Room.objects.count()  # a real query on the thread's connection
    return connection.connection.info.backend_pid


def terminate(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        return cursor.fetchone()[0]


async def main() -> dict:
    run = CommandSyncToAsync(command, thread_sensitive=False, executor=ThreadPoolExecutor(1))
    first = await run()
    kept = await run()
    terminated = await asyncio.to_thread(terminate, kept)  # from another connection
    after = await run()
    again = await run()
    return {"first": first, "kept": kept, "terminated": terminated, "after": after,
            "again": again}


print(json.dumps(asyncio.run(main())))
