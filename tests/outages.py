"""What a server's code meets in an outage, built as Django builds it, for
unit tests of what reads it (rooms.threads, config.logfilters)."""

from __future__ import annotations

from django.db import OperationalError
from psycopg_pool import PoolTimeout


def no_connection_error() -> OperationalError:
    """The error a command raises when the pool had no connection for it in
    time: Django's OperationalError raised from psycopg's PoolTimeout."""
    try:
        try:
            raise PoolTimeout("couldn't get a connection after 10.00 sec")
        except PoolTimeout as timeout:
            raise OperationalError(str(timeout)) from timeout
    except OperationalError as exc:
        return exc
