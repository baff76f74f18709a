"""config.logfilters.OutageRepeats: an outage's first traceback, then a line a
minute, and everything else untouched. The log records are real; the clock is
a counter the test moves."""

from __future__ import annotations

import logging
import sys

from redis.exceptions import ConnectionError as RedisConnectionError

from config.logfilters import OutageRepeats


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def record(exc: BaseException | None) -> logging.LogRecord:
    exc_info = None
    if exc is not None:
        try:
            raise exc
        except BaseException:  # noqa: BLE001 - the record carries what was raised
            exc_info = sys.exc_info()
    return logging.LogRecord("channels_redis.pubsub", logging.ERROR, __file__, 1,
                             "Unexpected exception in receive task", (), exc_info)


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


def test_the_settings_put_it_on_the_channel_layers_logger():
    # A logger's filters see only its own records, so it must sit on the very
    # logger channels-redis's receive loop writes to.
    from channels_redis import pubsub

    assert pubsub.logger.name == "channels_redis.pubsub"
    assert any(isinstance(f, OutageRepeats) for f in pubsub.logger.filters)
