"""A command that waits for a room's lock sees the game as the lock holder
left it (PostgreSQL). A row merely joined to a ``FOR UPDATE`` row keeps the
version the statement first saw; ``rooms.rows.lock_room`` reads the game after
the lock, and this shows both behaviours on a real server."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.integration.conftest import shared_env
from tests.servers import REPO_ROOT, python_for_servers

pytestmark = pytest.mark.postgres


def test_a_command_that_waited_for_the_lock_sees_the_game_moved_on(postgres_service):
    env = shared_env(postgres_service, "")
    probe = subprocess.run(
        [python_for_servers(), "-m", "tests.integration.lock_probe"],
        cwd=REPO_ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    result = json.loads(probe.stdout.strip().splitlines()[-1])
    ours, joined = result["rows"], result["orm_join"]
    assert ours["waited"] and joined["waited"]
    assert ours["seen"] == ours["before"] + result["moved_on"]
    # The hazard the lean lock avoids: the ORM's one-query lock-with-join
    # returned the game row as it was before the holder's commit.
    assert joined["seen"] == joined["before"]
