"""The site's session store (config.sessions): Django's database sessions,
read with one plain statement instead of the ORM. It must read exactly what
Django's store wrote, and treat an unknown or expired key as Django does: no
data, and the key dropped so a new one is made on save. On SQLite here, and
on PostgreSQL in a process of its own (tests/integration/session_probe.py)."""

from __future__ import annotations

import pytest
from django.conf import settings

from config.sessions import SessionStore
from tests.integration.conftest import run_probe
from tests.session_reads import EXPECTED, read_back, written_by_django


def test_the_site_uses_this_store():
    assert settings.SESSION_ENGINE == "config.sessions"


@pytest.mark.django_db
def test_it_reads_as_djangos_store_on_sqlite():
    assert read_back() == EXPECTED


@pytest.mark.postgres
def test_it_reads_as_djangos_store_on_postgresql(postgres_service):
    assert run_probe("session_probe", postgres_service) == EXPECTED


@pytest.mark.django_db
def test_an_expired_key_is_not_brought_back():
    old = written_by_django(expired=True, nickname="old")
    read = SessionStore(old)
    read["nickname"] = "new"
    read.save()
    assert read.session_key not in (None, old)
    assert SessionStore(read.session_key)["nickname"] == "new"
