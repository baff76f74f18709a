"""Command threads keep their pooled connection (rooms.threads), and a kept
connection that PostgreSQL closed meanwhile costs the next command, or the next
deadline the timers fire, nothing but a fresh connection: no error reaches the
player. On a real PostgreSQL, in a
process of its own as a server runs."""

from __future__ import annotations

import pytest

from tests.integration.conftest import run_probe

pytestmark = pytest.mark.postgres


def test_a_kept_connection_that_died_is_replaced_without_an_error(postgres_service):
    pids = run_probe("kept_connection_probe", postgres_service)
    assert pids["kept"] == pids["first"]  # the second command reused the connection
    assert pids["terminated"]
    assert pids["after"] != pids["kept"]  # ran, on a fresh connection
    assert pids["again"] == pids["after"]  # which is kept in turn


def test_a_command_that_fails_on_a_live_connection_runs_once(postgres_service):
    result = run_probe("kept_connection_probe", postgres_service)
    assert result["failed_with"] == "QueryCanceled"
    assert result["failing_runs"] == [result["again"]]  # once, on the kept connection
    assert result["after_failure"] == result["again"]  # still kept: it is usable


def test_the_timers_fire_on_a_fresh_connection_when_the_kept_one_died(postgres_service):
    result = run_probe("kept_connection_probe", postgres_service)
    assert result["fire_terminated"]
    (first_key, first_pid), (second_key, second_pid) = result["fired"]
    assert (first_key, second_key) == ("g:1", "g:2")  # both fired, in order
    assert first_pid != result["fire_kept"] and second_pid == first_pid
    assert result["fire_errors"] == []  # no deadline failed on the way
