"""The command threads: where room commands meet the database.

Room commands (a socket's messages, the timers' fires) run in a small pool of
threads per process (settings.KHELAGHOR_DB_THREADS): more threads than that
wait longer for the GIL than they gain (docs/performance.md). Each thread
keeps its pooled connection from one command to the next; Channels'
``database_sync_to_async`` closes it after every call instead.
"""

from __future__ import annotations

import functools
import logging
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async as _db_sync_to_async
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections

log = logging.getLogger(__name__)

_ONE_DB_THREAD = settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")

_DB_THREADS = None if _ONE_DB_THREAD else ThreadPoolExecutor(
    max_workers=settings.KHELAGHOR_DB_THREADS, thread_name_prefix="khelaghor-db"
)


def keep_connection_if_healthy(db) -> None:
    """After a command in a command thread: keep the thread's pooled
    connection for its next command unless it is unusable or was left inside a
    transaction. Channels' wrapper closes it after every call instead (with a
    pool, CONN_MAX_AGE must be 0), and the next command then paid the pool's
    checkout, its health-check round trip and Django's connection set-up: a
    fifth of a move's database CPU (docs/performance.md). A connection that
    raised is checked with one query, as Django checks one after an error.

    ``db`` is this thread's connection (``connections["default"]``), read once
    by the caller: each ``connection.x`` is a lookup in asgiref's ``Local``."""
    if db.connection is None:
        return
    # ``autocommit`` is what get_autocommit() returns once connected.
    if db.in_atomic_block or not db.autocommit:
        db.close()  # a bug left a transaction open: never reuse it
    elif db.errors_occurred:
        if db.is_usable():
            db.errors_occurred = False
        else:
            db.close()


def _connection_lost(db) -> bool:
    """Whether this thread's database connection has gone (psycopg marks one
    the server closed as closed; SQLite's never goes)."""
    raw = db.connection
    return raw is None or getattr(raw, "closed", False)


def once_more_if_connection_lost(db, run):
    """``run()``; and once more on a fresh connection if it failed because
    the kept connection had gone while it waited (PostgreSQL restarted, or
    closed it). Such a command fails on its first statement, before anything
    was written. (Should the connection die later, during a commit, a retried
    move is refused as stale, and a retried deadline finds its seq gone.) An
    error on a live connection (a lock timeout, a deadlock) is the command's
    own and is not run again."""
    kept = db.connection is not None
    try:
        return run()
    except (OperationalError, InterfaceError):
        if not kept or not _connection_lost(db):
            raise
        log.warning("a kept database connection had gone; the command runs again")
        db.close()
        return run()


class CommandSyncToAsync(SyncToAsync):
    """``sync_to_async`` into the command threads, keeping their connections
    (``keep_connection_if_healthy``), with a command that met a dead kept
    connection run once more (``once_more_if_connection_lost``)."""

    def thread_handler(self, loop, *args, **kwargs):
        db = connections[DEFAULT_DB_ALIAS]  # this thread's, for the whole command
        try:
            return once_more_if_connection_lost(
                db, lambda: super(CommandSyncToAsync, self).thread_handler(loop, *args, **kwargs))
        finally:
            keep_connection_if_healthy(db)


def database_sync_to_async(func):
    """On PostgreSQL, database work runs in the command threads rather than
    the process's one shared thread: each room is serialised by its row lock,
    so rooms need not wait for each other's commands (docs/performance.md).
    SQLite takes one write lock for the whole file anyway (and its
    shared-cache test database refuses concurrent writers outright), so it
    keeps the one thread."""
    if _ONE_DB_THREAD:
        return _db_sync_to_async(func)
    return CommandSyncToAsync(func, thread_sensitive=False, executor=_DB_THREADS)


# A room service as a command: one wrapper per service, built once (a move
# built a new one, with its inspection of the function, every time).
command = functools.cache(database_sync_to_async)
