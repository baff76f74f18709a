"""Find the real services a test needs, or skip it (fail it under CI).

A developer without Redis or PostgreSQL still gets a green run of everything
else; CI (CI=true) must not quietly skip, so there a missing service fails.
URLs come from KHELAGHOR_TEST_REDIS_URL / KHELAGHOR_TEST_DATABASE_URL first, so
.ci/run can point integration tests at real services while the main suite keeps
the embedded defaults (SQLite, in-memory layer).
"""

import os
import shutil

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
