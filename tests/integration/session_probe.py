"""Run in its own process on PostgreSQL by tests/foundation/test_sessions.py:
what the site's session store reads back (tests/session_reads.py). Prints JSON."""

import json
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from tests.session_reads import read_back  # noqa: E402

if __name__ == "__main__":
    print(json.dumps(read_back(), ensure_ascii=False))
