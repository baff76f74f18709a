"""Log filters for the settings' LOGGING.

``OutageRepeats`` keeps an outage from flooding the log: channels-redis's
receive loop logs a full traceback about once a second per process for as
long as Redis is away (it catches everything, logs, sleeps a second and tries
again). The first of them is logged as it is; the repeats are counted, and
one line a minute says the outage goes on and how many were left out.
"""

from __future__ import annotations

import logging
import time

from config.cache import REDIS_AWAY


class OutageRepeats(logging.Filter):
    """Lets through the first record of a logger that carries a Redis outage
    (an exception of ``config.cache.REDIS_AWAY``), then at most one a
    ``every`` seconds, without its traceback and with the count of those left
    out. A record of anything else, or one after a quiet ``every`` seconds,
    passes whole: a new outage shows its first traceback again."""

    def __init__(self, every: float = 60.0, clock=time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        self.last_shown: float | None = None
        self.last_seen: float | None = None
        self.left_out = 0

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, REDIS_AWAY):
            return True
        now = self.clock()
        ongoing = self.last_seen is not None and now - self.last_seen < self.every
        self.last_seen = now
        if not ongoing:  # an outage begins: its first record, traceback and all
            self.last_shown, self.left_out = now, 0
            return True
        if now - self.last_shown < self.every:
            self.left_out += 1
            return False
        record.msg = (f"{record.getMessage()} (Redis still away: {exc!r}; "
                      f"{self.left_out} more like it left out)")
        record.args = ()
        record.exc_info = record.exc_text = None
        self.last_shown, self.left_out = now, 0
        return True
