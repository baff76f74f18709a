"""Run in its own process on PostgreSQL by test_kept_connection.py: a command
thread keeps its connection between commands, and when PostgreSQL has closed
that connection meanwhile (here: pg_terminate_backend, as a restart would) the
next command still succeeds, on a fresh one; but a command that fails on a
live connection (here: a statement timeout) is not run again, and the
connection is kept. Prints the backend pids and the failing command's runs as
JSON."""

import asyncio
import json
import logging
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import OperationalError, connection, transaction  # noqa: E402

from rooms import ticker  # noqa: E402
from rooms.models import Room  # noqa: E402
from rooms.threads import CommandThreads, in_command_threads  # noqa: E402


def command() -> int:
    Room.objects.count()  # a real query on the thread's connection
    return connection.connection.info.backend_pid


failing_runs: list[int] = []


def failing_command() -> None:
    connection.ensure_connection()
    failing_runs.append(connection.connection.info.backend_pid)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = '10ms'")
        cursor.execute("SELECT pg_sleep(5)")


def terminate(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        return cursor.fetchone()[0]


async def main() -> dict:
    thread = CommandThreads(1)
    run = in_command_threads(command, thread)
    first = await run()
    kept = await run()
    terminated = await asyncio.to_thread(terminate, kept)  # from another connection
    after = await run()
    again = await run()
    try:
        await in_command_threads(failing_command, thread)()
        failed_with = None
    except OperationalError as exc:
        failed_with = type(exc.__cause__).__name__
    after_failure = await run()
    fires, fire_errors = await timers_fire_after_a_lost_connection(thread, run)
    return {"first": first, "kept": kept, "terminated": terminated, "after": after,
            "again": again, "failed_with": failed_with, "failing_runs": failing_runs,
            "after_failure": after_failure, **fires, "fire_errors": fire_errors}


async def timers_fire_after_a_lost_connection(thread, run) -> tuple[dict, list[str]]:
    """A batch of deadlines fired by the turn timers (``ticker._fire_claimed``)
    in the command thread, when PostgreSQL has closed its kept connection: each
    fire runs a query; the first meets the dead connection and runs again."""
    fired: list[list] = []

    def fire(key: str, payload: int) -> None:  # stands in for services.deadline_fire
        Room.objects.count()
        fired.append([key, connection.connection.info.backend_pid])

    errors: list[str] = []

    class Errors(logging.Handler):
        def emit(self, record):
            errors.append(record.getMessage())

    logging.getLogger("rooms.ticker").addHandler(Errors(logging.ERROR))
    ticker.fire = fire
    kept = await run()
    terminated = await asyncio.to_thread(terminate, kept)
    await in_command_threads(ticker._fire_claimed, thread)(
        [("g:1", 1), ("g:2", 2)])
    return {"fire_kept": kept, "fire_terminated": terminated, "fired": fired}, errors


print(json.dumps(asyncio.run(main())))
