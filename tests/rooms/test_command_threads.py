"""Command threads keep their database connection between room commands
(``rooms.consumers.keep_connection_if_healthy``) unless it is unusable or was
left inside a transaction. Pure decision logic, on a stand-in connection; the
servers' own runs (tests/integration) use the real one."""

from __future__ import annotations

import pytest

from rooms import consumers


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


@pytest.fixture
def stand_in():
    def make(**kwargs):
        conn = StandIn(**kwargs)
        consumers.keep_connection_if_healthy(conn)
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
