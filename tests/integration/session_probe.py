"""Run in its own process on PostgreSQL by test_sessions.py: the site's
session store (config.sessions) reads what Django's own store wrote, and
drops a key that is unknown or expired as Django's does. Prints JSON."""

import json
import os
from datetime import timedelta

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.contrib.sessions.backends.db import SessionStore as DjangosStore  # noqa: E402
from django.contrib.sessions.models import Session  # noqa: E402
from django.utils import timezone  # noqa: E402

from config.sessions import SessionStore  # noqa: E402


def main() -> None:
    written = DjangosStore()
    written["nickname"] = "রাজু"
    written["seats"] = [1, 2]
    written.create()
    expired = DjangosStore()
    expired["nickname"] = "old"
    expired.create()
    Session.objects.filter(session_key=expired.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1))
    read = SessionStore(written.session_key)
    gone = SessionStore(expired.session_key)
    unknown = SessionStore("z" * 32)
    out = {
        "read": dict(read.items()), "read_key_kept": read.session_key == written.session_key,
        "expired": dict(gone.items()), "expired_key": gone.session_key,
        "unknown": dict(unknown.items()), "unknown_key": unknown.session_key,
    }
    Session.objects.filter(session_key__in=[written.session_key, expired.session_key]).delete()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
