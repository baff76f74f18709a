"""Find the real services a test needs, or skip it (fail it under CI).

A developer without Redis or PostgreSQL still gets a green run of everything
else; CI (CI=true) must not quietly skip, so there a missing service fails.
URLs come from KHELAGHOR_TEST_REDIS_URL / KHELAGHOR_TEST_DATABASE_URL first, so
.ci/run can point integration tests at real services while the main suite keeps
the embedded defaults (SQLite, in-memory layer).
"""

import os
import re
import shutil
from urllib.parse import urlsplit, urlunsplit

import pytest

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/15"
DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test"
DEFAULT_CHROMIUM = "/usr/bin/chromium"


# How every browser test starts Debian's Chromium here.
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # The machine's network is closed; without these Chromium keeps calling home.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def unavailable(reason: str) -> None:
    """Skip the calling test, or fail it when running under CI."""
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def redis_url() -> str:
    return (
        os.environ.get("KHELAGHOR_TEST_REDIS_URL")
        or os.environ.get("REDIS_URL")
        or DEFAULT_REDIS_URL
    )


def postgres_url() -> str:
    return (
        os.environ.get("KHELAGHOR_TEST_DATABASE_URL")
        or os.environ.get("DATABASE_URL")
        or DEFAULT_POSTGRES_URL
    )


def chromium_path() -> str:
    return os.environ.get("KHELAGHOR_CHROMIUM") or DEFAULT_CHROMIUM


def require_redis() -> str:
    """Return a Redis URL that answers PING, else skip/fail."""
    import redis

    url = redis_url()
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
        client.close()
    except redis.RedisError as exc:
        unavailable(f"Redis at {url} does not answer: {exc}")
    return url


def require_postgres() -> str:
    """Return a PostgreSQL URL that answers SELECT 1, else skip/fail."""
    import psycopg

    url = postgres_url()
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        unavailable(f"PostgreSQL at {url} does not answer: {exc}")
    return url


def require_chromium() -> str:
    """Return the path of an executable Chromium, else skip/fail. Never downloads one."""
    path = chromium_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        found = shutil.which("chromium")
        if found is None:
            unavailable(f"no Chromium at {path} (install Debian's chromium package)")
        path = found
    return path


# --- One pytest-xdist worker's own services ------------------------------------
#
# Workers run at the same time, so each gets its own PostgreSQL database, Redis
# database and pub/sub channel prefix, derived from the ones above; a serial run
# (no worker) uses them as they are. pytest-django names its own test databases
# per worker already; these are the project's own settings, so they are ours.


def worker_number(worker: str) -> int:
    """``gw3`` -> 3: the id pytest-xdist gives each worker (PYTEST_XDIST_WORKER)."""
    match = re.fullmatch(r"gw(\d+)", worker)
    if match is None:
        raise ValueError(f"not a pytest-xdist worker id: {worker!r}")
    return int(match.group(1))


def postgres_url_for_worker(url: str, worker: str) -> str:
    """The same server, database ``<name>_<worker>``."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/") or "postgres"
    return urlunsplit(parts._replace(path=f"/{name}_{worker}"))


def redis_url_for_worker(url: str, worker: str, spare_dbs: str = "") -> str:
    """The same server, another database number: the ``n``-th of ``spare_dbs``
    (a comma list, KHELAGHOR_TEST_REDIS_DBS) when given, else the base number
    minus ``n`` (CI's base is 15, so its workers use 15, 14, ...)."""
    parts = urlsplit(url)
    n = worker_number(worker)
    if spare_dbs:
        dbs = [int(db) for db in spare_dbs.split(",") if db.strip()]
        if n >= len(dbs):
            raise ValueError(
                f"KHELAGHOR_TEST_REDIS_DBS={spare_dbs!r} has no database for worker {worker}"
            )
        db = dbs[n]
    else:
        base = int(parts.path.lstrip("/") or 0)
        db = base - n
        if db < 0:
            raise ValueError(
                f"Redis database {base} - {n} for worker {worker} is below 0: start from a "
                "higher KHELAGHOR_TEST_REDIS_URL database or set KHELAGHOR_TEST_REDIS_DBS"
            )
    return urlunsplit(parts._replace(path=f"/{db}"))


def create_postgres_database(url: str) -> None:
    """Create the database ``url`` names if the server answers and it is missing.
    A server that does not answer is left to require_postgres (skip, or fail in CI)."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    maintenance = urlunsplit(parts._replace(path="/postgres"))
    try:
        with psycopg.connect(maintenance, connect_timeout=3, autocommit=True) as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
            ).fetchone()
            if not exists:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error:
        return


def _has_games_table(db) -> bool:
    """Whether a server has migrated this database yet."""
    return db.execute("SELECT to_regclass('rooms_game')").fetchone()[0] is not None


def newest_game_id(postgres_url: str) -> int:
    """The highest game id on this database so far (0 before any game)."""
    import psycopg

    with psycopg.connect(postgres_url) as db:
        if not _has_games_table(db):
            return 0
        return db.execute("SELECT coalesce(max(id), 0) FROM rooms_game").fetchone()[0]


def stop_games_after(postgres_url: str, newest: int) -> None:
    """Stop the games newer than ``newest`` still in progress, and close their
    rooms, so no later server on this database plays them on: a game left in
    progress has its deadlines fired, and its computers move, in the next
    test's servers (a worker's tests share its database), where they queue for
    the same database threads as that test's own commands. The rooms are
    locked first, as the servers lock them before their games: a server may
    still be playing these games (a module's servers outlive each test), and
    the other order deadlocks with it."""
    import psycopg

    with psycopg.connect(postgres_url) as db:
        if not _has_games_table(db):
            return
        rooms = db.execute(
            "SELECT id FROM rooms_room WHERE id IN (SELECT room_id FROM rooms_game"
            " WHERE id > %s AND status = 'in_progress') ORDER BY id FOR UPDATE", (newest,)
        ).fetchall()
        if not rooms:
            return
        room_ids = [room_id for (room_id,) in rooms]
        db.execute("UPDATE rooms_game SET status = 'aborted', deadline = NULL"
                   " WHERE room_id = ANY(%s) AND id > %s AND status = 'in_progress'",
                   (room_ids, newest))
        db.execute("UPDATE rooms_room SET status = 'closed' WHERE id = ANY(%s)", (room_ids,))


def use_worker_services(worker: str) -> None:
    """Point this worker's tests (and the servers they start, which inherit the
    environment) at its own database, Redis database and Redis prefix."""
    postgres = postgres_url_for_worker(postgres_url(), worker)
    create_postgres_database(postgres)
    os.environ["KHELAGHOR_TEST_DATABASE_URL"] = postgres
    os.environ["KHELAGHOR_TEST_REDIS_URL"] = redis_url_for_worker(
        redis_url(), worker, os.environ.get("KHELAGHOR_TEST_REDIS_DBS", "")
    )
    prefix = (os.environ.get("KHELAGHOR_REDIS_PREFIX")
              or os.environ.get("KHELAGHOR_CHANNEL_PREFIX") or "khelaghor")
    os.environ["KHELAGHOR_REDIS_PREFIX"] = f"{prefix}_{worker}"
