"""What a server process meets while PostgreSQL cannot be reached (a restart,
a failover): the command threads' refusals (rooms.threads) and the log
filters (config.logfilters) read it alike."""

from __future__ import annotations

from django.db import OperationalError
from psycopg_pool import PoolTimeout


class DatabaseAway(OperationalError):
    """A command refused at once: the last command to wait for a database
    connection waited the pool's whole timeout for none, and another is
    waiting now (rooms.threads.CommandThreads). What it says is what a
    command that waited would have said, ``KHELAGHOR_DB_POOL_TIMEOUT``
    seconds later."""


def no_connection(exc: BaseException | None) -> bool:
    """Whether ``exc`` says that no database connection could be had: the
    pool's timeout (Django raises it as OperationalError) or a refusal for
    that reason, as against a lock timeout, a deadlock or a bug, which say
    nothing about the next command."""
    return isinstance(exc, DatabaseAway) or (
        isinstance(exc, OperationalError) and isinstance(exc.__cause__, PoolTimeout))
