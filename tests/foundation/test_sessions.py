"""The site's session store (config.sessions): Django's database sessions,
read with one plain statement instead of the ORM. It must read exactly what
Django's store wrote, and treat an unknown or expired key as Django does: no
data, and the key dropped so a new one is made on save. On SQLite here, and
on PostgreSQL in a process of its own (tests/integration/session_probe.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore as DjangosStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from config.sessions import SessionStore
from tests.integration.conftest import run_probe


def test_the_site_uses_this_store():
    assert settings.SESSION_ENGINE == "config.sessions"


@pytest.mark.django_db
def test_it_reads_what_djangos_store_wrote():
    written = DjangosStore()
    written["nickname"] = "রাজু"
    written["seats"] = [1, 2]
    written.create()
    read = SessionStore(written.session_key)
    assert dict(read.items()) == {"nickname": "রাজু", "seats": [1, 2]}
    assert read.session_key == written.session_key


@pytest.mark.django_db
def test_an_expired_session_is_empty_and_its_key_dropped():
    written = DjangosStore()
    written["nickname"] = "old"
    written.create()
    Session.objects.filter(session_key=written.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1))
    read = SessionStore(written.session_key)
    assert dict(read.items()) == {}
    assert read.session_key is None
    read["nickname"] = "new"
    read.save()  # a new key, not the expired one brought back
    assert read.session_key != written.session_key
    assert SessionStore(read.session_key)["nickname"] == "new"


@pytest.mark.django_db
def test_an_unknown_key_is_empty():
    read = SessionStore("z" * 32)
    assert dict(read.items()) == {} and read.session_key is None


@pytest.mark.postgres
def test_on_postgresql_too(postgres_service):
    result = run_probe("session_probe", postgres_service)
    assert result["read"] == {"nickname": "রাজু", "seats": [1, 2]} and result["read_key_kept"]
    assert result["expired"] == {} and result["expired_key"] is None
    assert result["unknown"] == {} and result["unknown_key"] is None
