"""Real servers for the integration tests: daphne processes on a fresh SQLite
file (in-memory channel layer, in-process timers) or on PostgreSQL + Redis.

Every server is started with ``tests.servers.run_daphne`` and answers /healthz
before a test sees it. PostgreSQL and Redis come from the ``postgres_service``
and ``redis_service`` fixtures, which skip locally and fail under CI=true;
``private_redis`` is a redis-server of the test's own, to stop and start.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest
import redis as redis_client

from tests import servers as started
from tests.servers import REPO_ROOT, free_port, python_for_servers
from tests.servers import run_daphnes as servers

# Computers act quickly so whole games fit in a test; humans get a real clock.
FAST = {"KHELAGHOR_BOT_DELAY": "0.05", "KHELAGHOR_TURN_SECONDS": "10"}


def sqlite_env(directory, **extra: str) -> dict[str, str]:
    """A fresh SQLite database in ``directory``, migrated, with the in-memory
    layer and in-process timers (REDIS_URL empty)."""
    return started.sqlite_env(directory, **{**FAST, **extra})


def shared_env(postgres_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    """PostgreSQL + Redis, migrated: what several daphne processes share."""
    return started.postgres_env(postgres_url, **{"REDIS_URL": redis_url, **FAST, **extra})


def run_probe(module: str, postgres_url: str) -> dict:
    """Run ``tests.integration.<module>`` in a process of its own on PostgreSQL,
    as a server process runs, and return the JSON it prints last."""
    probe = subprocess.run(
        [python_for_servers(), "-m", f"tests.integration.{module}"], cwd=REPO_ROOT,
        env={**os.environ, **shared_env(postgres_url, "")}, capture_output=True, text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    return json.loads(probe.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory):
    env = sqlite_env(tmp_path_factory.mktemp("sqlite"))
    with servers(env, 1) as (server,):
        yield server


@pytest.fixture(scope="module")
def shared_servers(postgres_service, redis_service):
    env = shared_env(postgres_service, redis_service)
    with servers(env, 2) as pair:
        yield pair


# ---- a Redis that a test may take down ------------------------------------------------


class PrivateRedis:
    """A redis-server of this test's own on a free port, without persistence."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis_client.Redis.from_url(self.url, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                return self
            except redis_client.RedisError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("the private redis-server did not start") from None
                time.sleep(0.05)  # polling for start-up, bounded by the deadline

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def private_redis(redis_service):
    if subprocess.run(["which", "redis-server"], capture_output=True).returncode != 0:
        pytest.fail("redis-server is needed to take Redis down without touching the shared one")
    redis = PrivateRedis().start()
    yield redis
    redis.stop()
