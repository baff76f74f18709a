"""Command threads keep their pooled connection (rooms.consumers), and a kept
connection that PostgreSQL closed meanwhile costs the next command nothing but
a fresh connection: no error reaches the player. On a real PostgreSQL, in a
process of its own as a server runs."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.integration.conftest import shared_env
from tests.servers import REPO_ROOT, python_for_servers

pytestmark = pytest.mark.postgres


def test_a_kept_connection_that_died_is_replaced_without_an_error(postgres_service):
    env = shared_env(postgres_service, "")
    probe = subprocess.run(
        [python_for_servers(), "-m", "tests.integration.kept_connection_probe"],
        cwd=REPO_ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    pids = json.loads(probe.stdout.strip().splitlines()[-1])
    assert pids["kept"] == pids["first"]  # the second command reused the connection
    assert pids["terminated"]
    assert pids["after"] != pids["kept"]  # ran, on a fresh connection
    assert pids["again"] == pids["after"]  # which is kept in turn
