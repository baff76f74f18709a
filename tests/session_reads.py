"""What the site's session store (config.sessions) reads back, written once
for both databases: in process on SQLite (tests/foundation/test_sessions.py)
and on PostgreSQL in a process of its own (tests/integration/session_probe.py).
Sessions are written by Django's own store; one of them is then expired."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.sessions.backends.db import SessionStore as DjangosStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from config.sessions import SessionStore

# What read_back returns when the store reads as Django's does.
EXPECTED = {
    "read": {"nickname": "রাজু", "seats": [1, 2]}, "read_key_kept": True,
    "expired": {}, "expired_key": None,
    "unknown": {}, "unknown_key": None,
}


def written_by_django(expired: bool = False, **data: Any) -> str:
    """A session saved by Django's store, its expiry passed if ``expired``; its key."""
    written = DjangosStore()
    written.update(data)
    written.create()
    if expired:
        Session.objects.filter(session_key=written.session_key).update(
            expire_date=timezone.now() - timedelta(seconds=1))
    return written.session_key


def read_back() -> dict[str, Any]:
    """A live session, an expired one and an unknown key, each read by the
    site's store: the data it found and the key it kept."""
    live = written_by_django(nickname="রাজু", seats=[1, 2])
    old = written_by_django(expired=True, nickname="old")
    read, gone, unknown = SessionStore(live), SessionStore(old), SessionStore("z" * 32)
    out = {
        "read": dict(read.items()), "read_key_kept": read.session_key == live,
        "expired": dict(gone.items()), "expired_key": gone.session_key,
        "unknown": dict(unknown.items()), "unknown_key": unknown.session_key,
    }
    Session.objects.filter(session_key__in=[live, old]).delete()
    return out
