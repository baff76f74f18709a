"""Command threads keep their database connection between room commands
(``rooms.threads.keep_connection_if_healthy``) unless it is unusable or was
left inside a transaction, and run a command once more when the kept
connection had gone (``once_more_if_connection_lost``). Pure decision logic,
on a stand-in connection; the servers' own runs (tests/integration) use the
real one."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from types import SimpleNamespace

import pytest
from django.db import OperationalError, connections

from rooms import threads
from tests.outages import no_connection_error


class StandIn:
    """The few parts of Django's connection wrapper the decision reads."""

    def __init__(self, *, open_=True, atomic=False, autocommit=True, errors=False, usable=True):
        self.connection = object() if open_ else None
        self.in_atomic_block = atomic
        self.autocommit = autocommit
        self.errors_occurred = errors
        self.usable = usable
        self.closed = False
        self.checked = 0

    def is_usable(self):
        self.checked += 1
        return self.usable

    def close(self):
        self.closed = True
        self.connection = None


@pytest.fixture
def stand_in():
    def make(**kwargs):
        conn = StandIn(**kwargs)
        threads.keep_connection_if_healthy(conn)
        return conn

    return make


def test_a_healthy_connection_is_kept_without_a_check(stand_in):
    conn = stand_in()
    assert not conn.closed and conn.checked == 0


def test_a_connection_left_in_a_transaction_is_closed(stand_in):
    assert stand_in(atomic=True).closed
    assert stand_in(autocommit=False).closed


def test_after_an_error_a_connection_that_answers_is_kept(stand_in):
    conn = stand_in(errors=True, usable=True)
    assert not conn.closed and conn.checked == 1 and not conn.errors_occurred


def test_after_an_error_a_connection_that_does_not_answer_is_closed(stand_in):
    conn = stand_in(errors=True, usable=False)
    assert conn.closed


def test_no_connection_nothing_to_do(stand_in):
    conn = stand_in(open_=False)
    assert not conn.closed and conn.checked == 0


def failing_once(conn, *, lose_connection: bool):
    """A command that fails on its first run (the connection gone, or a
    failure of its own on a live one), then succeeds."""
    runs = []

    def run():
        runs.append(conn.connection)
        if len(runs) == 1:
            if lose_connection:
                conn.connection = SimpleNamespace(closed=True)  # as psycopg marks it
            raise OperationalError("the first run fails")
        return "done"

    return run, runs


def test_a_command_that_met_its_kept_connection_gone_runs_once_more_on_a_fresh_one():
    conn = StandIn()
    run, runs = failing_once(conn, lose_connection=True)
    assert threads.once_more_if_connection_lost(conn, run) == "done"
    assert len(runs) == 2 and conn.closed and runs[1] is None  # the second opens its own


def test_a_failure_on_a_live_connection_is_the_commands_own_and_is_not_run_again():
    conn = StandIn()
    run, runs = failing_once(conn, lose_connection=False)
    with pytest.raises(OperationalError):
        threads.once_more_if_connection_lost(conn, run)
    assert len(runs) == 1 and not conn.closed


def test_a_command_that_opened_its_own_connection_is_not_run_again():
    conn = StandIn(open_=False)  # nothing kept: the failure is not a stale connection's
    run, runs = failing_once(conn, lose_connection=True)
    with pytest.raises(OperationalError):
        threads.once_more_if_connection_lost(conn, run)
    assert len(runs) == 1


# ---- the hop itself (rooms.threads.CommandThreads), with commands that touch no database ----

WHO_ASKS: contextvars.ContextVar[str] = contextvars.ContextVar("who_asks", default="nobody")


def test_a_command_runs_in_a_command_thread_in_its_callers_context():
    pool = threads.CommandThreads(2, name="test-commands")

    def where(suffix: str) -> tuple[str, str]:
        return threading.current_thread().name, WHO_ASKS.get() + suffix

    async def ask() -> tuple[str, str]:
        WHO_ASKS.set("seat 2")
        return await threads.in_command_threads(where, pool)("!")

    thread_name, asked = asyncio.run(ask())
    assert thread_name.startswith("test-commands_") and asked == "seat 2!"


def test_a_commands_exception_reaches_its_caller():
    pool = threads.CommandThreads(1)

    def refuse() -> None:
        raise ValueError("not your turn")

    async def ask() -> None:
        await threads.in_command_threads(refuse, pool)()

    with pytest.raises(ValueError, match="not your turn"):
        asyncio.run(ask())


def test_a_command_cancelled_before_a_thread_took_it_is_not_run():
    pool = threads.CommandThreads(1)
    release, ran = threading.Event(), []

    def hold() -> None:
        release.wait()  # keeps the only thread busy until the test lets go
        ran.append("hold")

    def note(name: str) -> None:
        ran.append(name)

    async def scene() -> None:
        held = pool.run(hold)
        cancelled = pool.run(note, "cancelled")
        cancelled.cancel()
        release.set()
        await held
        await pool.run(note, "after")  # taken after the cancelled one: the queue is in order

    asyncio.run(scene())
    assert ran == ["hold", "after"]


def test_a_command_holds_its_threads_connection_and_lets_go_after():
    """rooms.threads.connection: the wrapper the command read; looked up again after it."""
    pool = threads.CommandThreads(1)

    def look() -> tuple[bool, bool]:
        return threads.connection() is connections["default"], threads._running.db is not None

    assert asyncio.run(look_in(pool, look)) == (True, True)
    # The command's own wrapper is let go when it ends (here run on this thread).
    assert threads._run_keeping_connection(look, (), {}) == (True, True)
    assert getattr(threads._running, "db", None) is None
    assert threads.connection() is connections["default"]


async def look_in(pool, look):
    return await pool.run(look)


def finds_no_connection() -> None:
    raise no_connection_error()


def test_while_the_database_is_away_one_command_waits_and_the_others_are_refused_at_once():
    pool = threads.CommandThreads(2)
    release, ran = threading.Event(), []

    def waits_for_a_connection() -> str:
        release.wait()  # as a command waits for the pool: here until the test lets go
        ran.append("waited")
        return "played"

    def note(name: str) -> str:
        ran.append(name)
        return name

    async def scene() -> list:
        with pytest.raises(OperationalError):
            await pool.run(finds_no_connection)
        assert pool.database_away
        waiting = pool.run(waits_for_a_connection)
        refused = pool.run(note, "refused")
        assert refused.done()  # at once, without a thread
        with pytest.raises(threads.DatabaseAway):
            refused.result()
        release.set()
        assert await waiting == "played"  # it got its connection: the database is back
        assert not pool.database_away
        return [await pool.run(note, "after")]

    assert asyncio.run(scene()) == ["after"]
    assert ran == ["waited", "after"]


def test_a_command_queued_before_the_outage_was_known_is_refused_not_run_as_a_new_wait():
    """The first command to meet the outage waits the pool's whole timeout;
    a player's message queued behind it used to run next and wait the whole
    timeout again (18 s to its answer, not 10). Taken from the queue once the
    outage is known, it is refused at once; the next command to arrive waits."""
    pool = threads.CommandThreads(1)
    timed_out, ran = threading.Event(), []

    def first_to_wait() -> None:
        timed_out.wait()  # as the pool's timeout runs: here until the test lets go
        raise no_connection_error()

    def note(name: str) -> str:
        ran.append(name)
        return name

    async def scene() -> None:
        first = pool.run(first_to_wait)
        queued = pool.run(note, "queued")  # the outage is not known yet: it queues
        assert not queued.done()
        timed_out.set()
        with pytest.raises(OperationalError):
            await first
        with pytest.raises(threads.DatabaseAway):
            await queued
        assert pool.database_away
        assert await pool.run(note, "the next to wait") == "the next to wait"
        assert not pool.database_away  # it got a connection: the database is back

    asyncio.run(scene())
    assert ran == ["the next to wait"]


def test_a_lock_timeout_says_nothing_about_the_next_command():
    pool = threads.CommandThreads(1)

    def lock_timeout() -> None:
        raise OperationalError("canceling statement due to lock timeout")

    async def scene() -> None:
        with pytest.raises(OperationalError):
            await pool.run(lock_timeout)
        assert not pool.database_away
        with pytest.raises(OperationalError):
            await pool.run(finds_no_connection)
        assert pool.database_away
        # Whatever else ends the command that waited ends the outage too.
        with pytest.raises(OperationalError):
            await pool.run(lock_timeout)
        assert not pool.database_away

    asyncio.run(scene())


def test_calls_a_command_hands_to_the_loop_run_there_in_order_before_its_result(caplog):
    """A move hands its broadcast and its arm to the caller's loop
    (``threads.call_on_loop``): they come with its result, in one wake-up,
    in the order made, on the loop's thread; one that fails is logged and
    the others and the result still come."""
    pool = threads.CommandThreads(1, name="test-calls")
    happened: list[tuple[str, bool]] = []

    def note(what: str) -> None:
        happened.append((what, threading.current_thread() is threading.main_thread()))

    def fail() -> None:
        raise RuntimeError("a broadcast that cannot start")

    def move(loop) -> str:
        threads.call_on_loop(loop, note, "broadcast")
        threads.call_on_loop(loop, fail)
        threads.call_on_loop(loop, note, "arm")
        note("committed")  # in the command's thread, before any of them
        return "moved"

    async def scene() -> None:
        result = await pool.run(move, asyncio.get_running_loop())
        note(result)

    asyncio.run(scene())
    assert happened == [("committed", False), ("broadcast", True), ("arm", True),
                        ("moved", True)]
    assert "a call a command handed to the event loop failed" in caplog.text


def test_a_call_from_outside_the_command_threads_goes_to_the_loop_at_once():
    async def scene() -> bool:
        loop, landed = asyncio.get_running_loop(), asyncio.Event()
        other = threading.Thread(target=threads.call_on_loop, args=(loop, landed.set))
        other.start()
        other.join()  # nothing of the other thread's is left to hand it over later
        await asyncio.wait_for(landed.wait(), 5)
        return landed.is_set()

    assert asyncio.run(scene())


def test_a_command_that_commits_several_times_hands_each_over_as_it_goes():
    """The timers fire a batch of deadlines in one command (rooms.ticker):
    ``hand_over_held`` sends what the first fire held to the loop while the
    command goes on, so the first table's update does not wait for the rest."""
    pool = threads.CommandThreads(1, name="test-batch")
    reached_the_loop = threading.Event()

    def batch(loop) -> bool:
        threads.call_on_loop(loop, reached_the_loop.set)  # the first fire's broadcast
        threads.hand_over_held()
        return reached_the_loop.wait(5)  # the second fire would start here

    async def scene() -> bool:
        return await pool.run(batch, asyncio.get_running_loop())

    assert asyncio.run(scene()) is True
