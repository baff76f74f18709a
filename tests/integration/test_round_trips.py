"""A move is two round trips to PostgreSQL: ``BEGIN`` travels with the room's
lock and ``COMMIT`` with the writes (``rooms.rows.run``), where psycopg would
send each in a round trip of its own (docs/performance.md). Counted in a
process of its own on a real PostgreSQL, as a server runs."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.integration.conftest import shared_env
from tests.servers import REPO_ROOT, python_for_servers

pytestmark = pytest.mark.postgres


def test_a_move_sends_no_begin_or_commit_of_its_own(postgres_service):
    env = shared_env(postgres_service, "")
    probe = subprocess.run(
        [python_for_servers(), "-m", "tests.integration.round_trip_probe"],
        cwd=REPO_ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    result = json.loads(probe.stdout.strip().splitlines()[-1])
    # The counter sees psycopg's own commands: a plain atomic block sends both.
    assert result["plain_atomic"] == ["BEGIN", "COMMIT"]
    assert result["move"] == []
    assert result["version_moved"] == 1 and result["moves_logged"] >= 1
    # A refused move rolls back (psycopg's ROLLBACK) and changes nothing.
    assert result["stale_refused"] and result["version_after_refusal"] == 0
    assert result["refused"] == ["ROLLBACK"]
