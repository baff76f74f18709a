"""The command threads: where room commands meet the database.

Room commands (a socket's messages, the timers' fires) run in a small pool of
threads per process (settings.KHELAGHOR_DB_THREADS): more threads than that
wait longer for the GIL than they gain (docs/performance.md). Each thread
keeps its pooled connection from one command to the next; Channels'
``database_sync_to_async`` closes it after every call instead.

A command goes to its thread and back as lightly as a thread hop can: one put
on a queue, and one ``call_soon_threadsafe`` that settles the caller's future
(``CommandThreads``). asgiref's ``SyncToAsync`` over a ``ThreadPoolExecutor``
did the same with a concurrent future chained to an asyncio one, a shield, a
semaphore and the caller's context copied back: about a third of the hop's
CPU on the event loop (docs/performance.md, "Round 13").
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async as _db_sync_to_async
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections

from config.dbaway import DatabaseAway, no_connection

log = logging.getLogger(__name__)

_ONE_DB_THREAD = settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")


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


class CommandThreads:
    """``count`` threads that run commands for event loops, started at the
    first command. Each command runs in a copy of its caller's context (so
    ``rooms.publish`` finds the caller's loop), on the thread's kept
    connection (``keep_connection_if_healthy``), once more on a fresh one if
    it met a dead kept connection (``once_more_if_connection_lost``). Its
    result or exception settles the caller's future on the caller's loop. A
    command whose caller was cancelled before a thread took it is not run, as
    with an executor; one already running finishes, and its result is dropped.

    While the database is away (a command waited the pool's whole timeout for
    a connection and none came), one command at a time goes to a thread to
    wait for it and the others are refused at once with DatabaseAway: each
    used to hold a thread for the whole wait (10 s), so the few threads
    queued every player's message behind those waits and the answers came
    later and later. The first command that gets a connection ends it.
    Commands queued before the outage was known (behind the first waits) are
    refused when a thread takes them, unless the database is back by then:
    run as they came, the next of them waited the whole timeout again, and a
    player's message was answered after 18 s instead of 10 (an operator's
    drill)."""

    def __init__(self, count: int, name: str = "khelaghor-db") -> None:
        self.count = count
        self.name = name
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._started = False
        self._start_lock = threading.Lock()
        # Set by the command threads, read by the loops: plain attributes
        # (under the GIL) are enough; at worst two commands wait at once.
        self.database_away = False
        self._waiting_for_it = False

    def run(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> asyncio.Future:
        """From an event loop: ``func(*args, **kwargs)`` in a command thread;
        a future of this loop for its result."""
        if not self._started:
            self._start()
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        waiter = False
        if self.database_away:
            if self._waiting_for_it:
                future.set_exception(_refusal())
                return future
            self._waiting_for_it = waiter = True
        self._queue.put((loop, future, contextvars.copy_context(), func, args, kwargs, waiter))
        return future

    def _learn(self, exc: BaseException | None) -> None:
        """After a command: whether the database is away, by how it ended."""
        away = no_connection(exc)
        if away != self.database_away:
            self.database_away = away
            if away:
                log.warning("the database is away: one command at a time waits for it, "
                            "the others are refused at once")
            else:
                log.warning("the database is back")
        self._waiting_for_it = False

    def _start(self) -> None:
        with self._start_lock:
            if self._started:
                return
            for number in range(self.count):
                threading.Thread(target=self._work, name=f"{self.name}_{number}",
                                 daemon=True).start()
            self._started = True

    def _work(self) -> None:
        take = self._queue.get
        while True:
            loop, future, context, func, args, kwargs, waiter = take()
            if future.cancelled():  # a read across threads: at worst it runs, as a started one does
                if waiter:
                    self._waiting_for_it = False  # the next one will wait instead
                continue
            if self.database_away and not waiter:  # queued before the outage was known
                _settle_soon(loop, future, None, _refusal())
                continue
            held = _running.loop_calls = []
            _running.loop = loop
            try:
                result = context.run(_run_keeping_connection, func, args, kwargs)
            except BaseException as exc:  # noqa: BLE001 - every failure goes to the caller
                self._learn(exc)
                _settle_soon(loop, future, None, exc, held)
            else:
                self._learn(None)
                _settle_soon(loop, future, result, None, held)
            finally:
                _running.loop_calls = _running.loop = None
            del loop, future, context, func, args, kwargs, held  # not kept alive while idle


def _refusal() -> DatabaseAway:
    return DatabaseAway("the database is away: another command is waiting for a connection")


# What the command a command thread runs holds: its database wrapper.
_running = threading.local()


def connection():
    """This thread's database wrapper (``connections["default"]``): in a
    command thread, the one its command read at the start, without another
    lookup in asgiref's ``Local`` (a move made a dozen, through
    ``transaction.on_commit`` and the rows' statements: about 2 % of a
    server's CPU, docs/performance.md "Round 13"); elsewhere looked up."""
    db = getattr(_running, "db", None)
    return db if db is not None else connections[DEFAULT_DB_ALIAS]


def _run_keeping_connection(func, args, kwargs):
    db = _running.db = connections[DEFAULT_DB_ALIAS]  # this thread's, for the whole command
    try:
        return once_more_if_connection_lost(db, lambda: func(*args, **kwargs))
    finally:
        _running.db = None
        keep_connection_if_healthy(db)


def call_on_loop(loop: asyncio.AbstractEventLoop, func: Callable[..., Any], *args: Any) -> None:
    """From a command: ``func(*args)`` on ``loop`` soon (a broadcast, an arm
    to start). In a command thread whose caller runs on ``loop`` the call is
    held and handed over with the command's result, in one wake-up of the
    loop: each ``call_soon_threadsafe`` writes to the loop's self-pipe, and a
    move handed over its broadcast, its arm and its result in three
    (docs/performance.md, round 15). Elsewhere handed over at once; a closed
    loop raises RuntimeError, as ``call_soon_threadsafe`` does."""
    held = getattr(_running, "loop_calls", None)
    if held is not None and _running.loop is loop:
        held.append((func, args))
    else:
        loop.call_soon_threadsafe(func, *args)


def hand_over_held() -> None:
    """In a command thread: hand what the command has held for its caller's
    loop (``call_on_loop``) over now, in one ``call_soon_threadsafe``. For a
    command that commits several times, as the timers' batch of fires does
    (rooms.ticker): each table's update leaves as its move commits, not when
    the batch ends."""
    held = getattr(_running, "loop_calls", None)
    if held:
        calls = held[:]
        held.clear()
        try:
            _running.loop.call_soon_threadsafe(_run_calls, calls)
        except RuntimeError:  # the caller's loop has closed
            pass


def _run_calls(calls) -> None:
    # In order, as they were made; one that fails does not stop the others.
    for func, args in calls:
        try:
            func(*args)
        except Exception:
            log.exception("a call a command handed to the event loop failed")


def _settle_soon(loop, future, result, exc, calls=()) -> None:
    try:
        loop.call_soon_threadsafe(_settle, future, result, exc, calls)
    except RuntimeError:  # the caller's loop has closed: nobody waits
        pass


def _settle(future: asyncio.Future, result: Any, exc: BaseException | None,
            calls=()) -> None:
    # The calls the command held run first: its broadcast is on its way
    # before its caller hears the result.
    _run_calls(calls)
    if future.cancelled():
        return
    if exc is None:
        future.set_result(result)
    else:
        future.set_exception(exc)


_COMMAND_THREADS = None if _ONE_DB_THREAD else CommandThreads(settings.KHELAGHOR_DB_THREADS)


def in_command_threads(func, pool: CommandThreads | None = None):
    """``func`` as a coroutine function that runs it in ``pool`` (this
    process's command threads by default)."""
    pool = pool or _COMMAND_THREADS

    @functools.wraps(func)
    async def command(*args, **kwargs):
        return await pool.run(func, *args, **kwargs)

    return command


def database_sync_to_async(func):
    """On PostgreSQL, database work runs in the command threads rather than
    the process's one shared thread: each room is serialised by its row lock,
    so rooms need not wait for each other's commands (docs/performance.md).
    SQLite takes one write lock for the whole file anyway (and its
    shared-cache test database refuses concurrent writers outright), so it
    keeps the one thread."""
    if _ONE_DB_THREAD:
        return _db_sync_to_async(func)
    return in_command_threads(func)


# A room service as a command: one wrapper per service, built once (a move
# built a new one, with its inspection of the function, every time).
command = functools.cache(database_sync_to_async)
