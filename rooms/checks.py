"""System checks an operator sees at ``manage.py migrate`` (and ``check --database default``).

Every move rewrites its room's and its game's rows, so a busy site leaves dead
row versions behind at the rate of its moves. PostgreSQL's autovacuum (on by
default) clears them; on a server where it is turned off they pile up, and
each later move costs PostgreSQL more: in the load benchmarks on such a
server the product's CPU per update rose by a quarter over five runs of
twenty seconds (docs/performance.md, round 16; docs/deploy.md).
"""

from __future__ import annotations

from django.core import checks
from django.db import connections

AUTOVACUUM_OFF = "khelaghor.W001"


def autovacuum_warnings(alias: str, setting: str) -> list[checks.CheckMessage]:
    """The warning for a database whose ``SHOW autovacuum`` said ``setting``."""
    if setting == "on":  # what PostgreSQL shows for a boolean that is on
        return []
    return [checks.Warning(
        f"PostgreSQL's autovacuum is {setting!r} for the database {alias!r}: rooms "
        "and games are rewritten at every move, and their dead row versions will "
        "pile up and slow every later move.",
        hint="Turn autovacuum on (PostgreSQL's default), or VACUUM the database "
             "regularly (docs/deploy.md, \"Redis and PostgreSQL notes\").",
        id=AUTOVACUUM_OFF,
    )]


@checks.register(checks.Tags.database)
def check_autovacuum(app_configs=None, databases=None, **kwargs) -> list[checks.CheckMessage]:
    """Run only where Django runs database checks (migrate, ``check --database``)."""
    messages: list[checks.CheckMessage] = []
    for alias in databases or ():
        connection = connections[alias]
        if connection.vendor != "postgresql":
            continue
        with connection.cursor() as cursor:
            cursor.execute("SHOW autovacuum")
            (setting,) = cursor.fetchone()
        messages += autovacuum_warnings(alias, setting)
    return messages
