"""config.logfilters: an outage's first record, then a line a minute, and
everything else untouched, for Redis and for PostgreSQL. The log records are
real; the clock is a counter the test moves."""

from __future__ import annotations

import logging
import sys

from django.db import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from config.dbaway import DatabaseAway
from config.logfilters import DatabaseOutageRepeats, OutageRepeats
from tests.outages import no_connection_error


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def record(exc: BaseException | None, name: str = "channels_redis.pubsub",
           msg: str = "Unexpected exception in receive task", args=()) -> logging.LogRecord:
    exc_info = None
    if exc is not None:
        try:
            raise exc
        except BaseException:  # noqa: BLE001 - the record carries what was raised
            exc_info = sys.exc_info()
    return logging.LogRecord(name, logging.ERROR, __file__, 1, msg, args, exc_info)


def away() -> logging.LogRecord:
    return record(RedisConnectionError("Error 111 connecting to 127.0.0.1:6379."))


def test_an_outage_logs_its_first_traceback_then_a_line_a_minute():
    clock = Clock()
    repeats = OutageRepeats(every=60, clock=clock)
    first = away()
    assert repeats.filter(first) and first.exc_info is not None
    shown = []
    for _ in range(150):  # the receive loop's one a second
        clock.now += 1
        one = away()
        if repeats.filter(one):
            shown.append((clock.now, one))
    assert [when for when, _ in shown] == [60, 120]
    for _, line in shown:
        assert line.exc_info is None and line.exc_text is None
        assert "Redis still away" in line.getMessage()
        assert "59 more like it left out" in line.getMessage()
        assert "Unexpected exception in receive task" in line.getMessage()


def test_a_new_outage_shows_its_traceback_again():
    clock = Clock()
    repeats = OutageRepeats(every=60, clock=clock)
    assert repeats.filter(away())
    clock.now += 1
    assert not repeats.filter(away())
    clock.now += 600  # Redis came back; later it goes away again
    again = away()
    assert repeats.filter(again) and again.exc_info is not None


def test_other_records_pass_untouched_during_an_outage():
    clock = Clock()
    repeats = OutageRepeats(every=60, clock=clock)
    assert repeats.filter(away())
    other = record(ValueError("a bug, not an outage"))
    plain = record(None)
    assert repeats.filter(other) and other.exc_info is not None
    assert repeats.filter(plain)
    clock.now += 1
    assert not repeats.filter(away())  # still counted as the same outage


def test_a_database_outage_counts_the_pools_warnings_and_the_clocks_tracebacks():
    clock = Clock()
    pool, clocks = DatabaseOutageRepeats(clock=clock), DatabaseOutageRepeats(clock=clock)
    warning = record(None, "psycopg.pool", "error connecting in %r: %s", ("pool-1", "refused"))
    assert pool.filter(warning)  # the first
    shown = []
    for second in range(1, 121):
        clock.now = second
        for line in (record(None, "psycopg.pool", "error connecting in %r: %s",
                            ("pool-1", "refused")),
                     record(None, "psycopg.pool", "reconnection attempt in pool %r failed "
                            "after %s sec", ("pool-1", 4.0))):
            if pool.filter(line):
                shown.append(line.getMessage())
    assert len(shown) == 2 and all("PostgreSQL still away" in text for text in shown)
    assert "118 more like it left out" in shown[0]  # two a second from 1 s to 59 s
    # A connection the pool drops is not the outage: it passes.
    assert pool.filter(record(None, "psycopg.pool", "discarding closed connection: %s", ("x",)))

    first = record(no_connection_error(), "rooms.ticker", "database sweep failed")
    assert clocks.filter(first) and first.exc_info is not None  # its own first, traceback and all
    clock.now += 1
    assert not clocks.filter(record(DatabaseAway("refused at once"), "rooms.ticker",
                                    "the turn clocks' beat failed"))
    lock = record(OperationalError("canceling statement due to lock timeout"), "rooms.ticker",
                  "database sweep failed")
    assert clocks.filter(lock) and lock.exc_info is not None  # not an outage: whole


def test_the_settings_put_them_on_the_loggers_that_repeat():
    # A logger's filters see only its own records, so each must sit on the very
    # logger that writes them: channels-redis's receive loop, psycopg's pool
    # and the turn clocks.
    from channels_redis import pubsub
    from psycopg_pool import pool as psycopg_pool

    from rooms import ticker

    assert pubsub.logger.name == "channels_redis.pubsub"
    assert any(type(f) is OutageRepeats for f in pubsub.logger.filters)
    for logger in (psycopg_pool.logger, ticker.log):
        assert any(isinstance(f, DatabaseOutageRepeats) for f in logger.filters), logger.name


def test_our_own_outage_notes_are_counted_like_the_outage_itself():
    """One note per update, socket or deadline while Redis is away (thousands a
    second at a busy site, an operator's drill found 45 in 20 s at three
    tables): the first is logged, then one line a minute with the count. A note
    of the other outage, or an unmarked line, passes."""
    from config.logfilters import DATABASE_AWAY_NOTE, REDIS_AWAY_NOTE

    clock = Clock()
    notes = OutageRepeats(every=60.0, clock=clock)

    def note(extra=None, msg="Redis is away (%s): a room's update went to %d socket(s)"):
        made = record(None, "rooms.publish", msg, ("refused", 0))
        for key, value in (extra or {}).items():
            setattr(made, key, value)
        return made

    assert notes.filter(note(REDIS_AWAY_NOTE))
    shown = 0
    for _ in range(44):
        clock.now += 0.4
        shown += notes.filter(note(REDIS_AWAY_NOTE))
    assert shown == 0
    # Another kind of note shows its own first, then is counted apart.
    turned_away = "a socket was turned away: Redis is away (%s), %d"
    assert notes.filter(note(REDIS_AWAY_NOTE, turned_away))
    assert not notes.filter(note(REDIS_AWAY_NOTE, turned_away))
    assert notes.filter(note(DATABASE_AWAY_NOTE))  # not this filter's outage
    assert notes.filter(note(None, "a room was closed"))
    clock.now += 60
    summary = note(REDIS_AWAY_NOTE)
    assert notes.filter(summary)
    assert "44 more like it left out" in summary.getMessage()


def test_the_loggers_of_our_notes_carry_their_filters():
    from rooms import consumers, publish
    from rooms.services import play

    assert any(type(f) is OutageRepeats for f in publish.log.filters)
    assert any(type(f) is OutageRepeats for f in play.log.filters)
    assert {type(f) for f in consumers.log.filters} == {OutageRepeats, DatabaseOutageRepeats}
