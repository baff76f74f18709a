"""Log filters for the settings' LOGGING.

An outage must not flood the log. While Redis is away, channels-redis's
receive loop logs a full traceback about once a second per process (it
catches everything, logs, sleeps a second and tries again). While PostgreSQL
is away, psycopg's pool warns at every try to reconnect (about two a second)
and the turn clocks' beat and sweep log a traceback at every turn. The first
record of an outage is logged as it is; the repeats are counted, and one line
a minute says the outage goes on and how many were left out.

Our own notes of what an outage changes (an update that reached this
process's sockets only, a socket turned away, a deadline fired without its
action claim) come once per update, socket or deadline: at a busy site that
is thousands of lines a second. They say which outage they belong to with
``extra=REDIS_AWAY_NOTE`` (or ``DATABASE_AWAY_NOTE``) and are counted the same.
"""

from __future__ import annotations

import logging
import time

from config.cache import REDIS_AWAY
from config.dbaway import no_connection

REDIS_AWAY_NOTE = {"outage": "Redis"}
DATABASE_AWAY_NOTE = {"outage": "PostgreSQL"}


class OutageRepeats(logging.Filter):
    """Lets through the first record of an outage (``outage``), then at most
    one a ``every`` seconds, without its traceback and with the count of those
    left out. A record of anything else, or one after a quiet ``every``
    seconds, passes whole: a new outage shows its first record again. One
    instance per logger, so each logger shows its own first record."""

    what = "Redis"

    def __init__(self, every: float = 60.0, clock=time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        # key -> [last shown, last seen, left out]; the key is None for the
        # outage's own records, and a note's text for our notes, so that each
        # kind of note shows its first (a socket turned away, an update sent
        # here only) and is counted apart.
        self.state: dict[str | None, list] = {}

    def outage(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` tells of the outage: here Redis's."""
        return record.exc_info is not None and isinstance(record.exc_info[1], REDIS_AWAY)

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "outage", None) == self.what:
            key = str(record.msg)
        elif self.outage(record):
            key = None
        else:
            return True
        now = self.clock()
        last_shown, last_seen, left_out = self.state.get(key, (None, None, 0))
        ongoing = last_seen is not None and now - last_seen < self.every
        if not ongoing:  # an outage begins: its first record, traceback and all
            self.state[key] = [now, now, 0]
            return True
        if now - last_shown < self.every:
            self.state[key] = [last_shown, now, left_out + 1]
            return False
        cause = f": {record.exc_info[1]!r}" if record.exc_info else ""
        record.msg = (f"{record.getMessage()} ({self.what} still away{cause}; "
                      f"{left_out} more like it left out)")
        record.args = ()
        record.exc_info = record.exc_text = None
        self.state[key] = [now, now, 0]
        return True


class DatabaseOutageRepeats(OutageRepeats):
    """The same for PostgreSQL: a record carrying the pool's timeout (or a
    command refused for it, config.dbaway), or psycopg's pool's own warnings
    that it could not reconnect."""

    what = "PostgreSQL"
    POOL_WARNINGS = ("error connecting in ", "reconnection attempt in ")

    def outage(self, record: logging.LogRecord) -> bool:
        if record.exc_info is not None and no_connection(record.exc_info[1]):
            return True
        return record.name == "psycopg.pool" and str(record.msg).startswith(self.POOL_WARNINGS)
