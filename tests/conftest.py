"""Fixtures shared by every test: real services, found or skipped (see services.py)."""

import pytest

from tests import services


@pytest.fixture(scope="session")
def redis_service() -> str:
    """URL of a Redis that answers."""
    return services.require_redis()


@pytest.fixture(scope="session")
def postgres_service() -> str:
    """URL of a PostgreSQL that answers."""
    return services.require_postgres()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Path of Debian's Chromium for Playwright (never a downloaded browser)."""
    return services.require_chromium()
