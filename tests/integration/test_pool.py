"""A bounded pool of database connections (docs/deploy.md, "Database connections").

Under ASGI each HTTP request runs its ORM work in a thread of its own; with
persistent connections a burst of requests left a connection behind per thread
and PostgreSQL refused the rest ("too many clients"). With the pool, a burst of
128 concurrent requests on one real daphne is answered in full while the
process never holds more than KHELAGHOR_DB_POOL_SIZE connections, counted in
pg_stat_activity by the application name the process connects with.
"""

from __future__ import annotations

import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from tests.integration import tables
from tests.integration.conftest import shared_env
from tests.servers import free_port, run_daphne

pytestmark = [pytest.mark.integration, pytest.mark.postgres, pytest.mark.redis,
              pytest.mark.slow]

BURST = 128
POOL_SIZE = 6


def connections_of(postgres_url: str, application_name: str) -> int:
    with psycopg.connect(postgres_url, autocommit=True) as db:
        (count,) = db.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
            (application_name,),
        ).fetchone()
    return count


class ConnectionCounter(threading.Thread):
    """Counts the process's backends in pg_stat_activity until stopped; keeps the most."""

    def __init__(self, postgres_url: str, application_name: str) -> None:
        super().__init__(daemon=True)
        self.url, self.name = postgres_url, application_name
        self.most = 0
        self.samples = 0
        self.done = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as db:
            while not self.done.is_set():
                (count,) = db.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                    (self.name,),
                ).fetchone()
                self.most = max(self.most, count)
                self.samples += 1
                self.done.wait(0.01)  # sampling interval, not synchronisation


def get(url: str, start: threading.Barrier) -> int:
    start.wait()
    with urllib.request.urlopen(url, timeout=120) as response:
        response.read()
        return response.status


def test_a_burst_of_128_requests_is_answered_within_a_bounded_pool(
    postgres_service, redis_service
):
    name = f"khelaghor_pool_test_{free_port()}"
    separator = "&" if "?" in postgres_service else "?"
    env = shared_env(
        f"{postgres_service}{separator}application_name={name}", redis_service,
        KHELAGHOR_DB_POOL_SIZE=str(POOL_SIZE),
        # Generous: the burst queues for connections on a machine that may be busy.
        KHELAGHOR_DB_POOL_TIMEOUT="60",
    )
    with run_daphne(free_port(), env) as server:
        host = tables.signed_in(server.base_url, "Tanvir")
        code = host.create_room("ludo", 4)
        url = f"{server.base_url}/api/rooms/{code}/"

        counter = ConnectionCounter(postgres_service, name)
        counter.start()
        start = threading.Barrier(BURST)
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=BURST) as pool:
            statuses = list(pool.map(lambda _: get(url, start), range(BURST)))
        took = time.monotonic() - began
        counter.done.set()
        counter.join(timeout=10)
        after = connections_of(postgres_service, name)

    print(f"\nburst of {BURST}: {took:.1f} s, at most {counter.most} connections "
          f"({counter.samples} samples), {after} open after it")
    assert statuses == [200] * BURST
    assert counter.samples > 0
    assert 0 < counter.most <= POOL_SIZE
    assert after <= POOL_SIZE
