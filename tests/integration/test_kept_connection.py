"""Command threads keep their pooled connection (rooms.consumers), and a kept
connection that PostgreSQL closed meanwhile costs the next command nothing but
a fresh connection: no error reaches the player. On a real PostgreSQL, in a
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
