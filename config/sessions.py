"""Django's database sessions, read with one plain statement.

Every page and every socket that arrives reads its visitor's session (it
keys a guest's seats). Django's store reads it through the ORM, which builds
and compiles the same query anew each time: 450 µs of CPU a read on the
session machine, against about 140 µs for this statement and its decoding
(docs/performance.md, round 14). Writes, expiry and everything else are
Django's own.
"""

from __future__ import annotations

from functools import cache

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone


class SessionStore(db.SessionStore):
    def load(self):
        alias = router.db_for_read(self.model)
        connection = connections[alias]
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(_read_sql(alias), [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            # Unknown or expired, as Django's store: the visitor starts anew.
            self._session_key = None
            return {}
        return self.decode(row[0])


@cache
def _read_sql(alias: str) -> str:
    model = SessionStore.get_model_class()
    quote = connections[alias].ops.quote_name
    fields = {f.name: quote(f.column) for f in model._meta.fields}
    return (f"SELECT {fields['session_data']} FROM {quote(model._meta.db_table)} "
            f"WHERE {fields['session_key']} = %s AND {fields['expire_date']} > %s")
