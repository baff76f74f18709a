"""A move is two round trips to PostgreSQL: ``BEGIN`` travels with the room's
lock and ``COMMIT`` with the writes (``rooms.rows.run``), where psycopg would
send each in a round trip of its own (docs/performance.md). Counted in a
process of its own on a real PostgreSQL, as a server runs."""

from __future__ import annotations

import pytest

from tests.integration.conftest import run_probe

pytestmark = pytest.mark.postgres


def test_a_move_sends_no_begin_or_commit_of_its_own(postgres_service):
    result = run_probe("round_trip_probe", postgres_service)
    # The counter sees psycopg's own commands: a plain atomic block sends both.
    assert result["plain_atomic"] == ["BEGIN", "COMMIT"]
    assert result["move"] == []
    assert result["version_moved"] == 1 and result["moves_logged"] >= 1
    # A refused move rolls back (psycopg's ROLLBACK) and changes nothing.
    assert result["stale_refused"] and result["version_after_refusal"] == 0
    assert result["refused"] == ["ROLLBACK"]
