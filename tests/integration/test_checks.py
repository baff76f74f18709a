"""The system check an operator meets at ``migrate``: PostgreSQL's autovacuum
(rooms.checks). Every move rewrites its room's and game's rows; without
autovacuum their dead versions pile up and every later move costs more."""

from __future__ import annotations

import psycopg
import pytest

from rooms.checks import AUTOVACUUM_OFF, autovacuum_warnings
from tests import servers


def test_autovacuum_off_is_a_warning_that_names_the_database():
    (warning,) = autovacuum_warnings("default", "off")
    assert warning.id == AUTOVACUUM_OFF
    assert "'default'" in warning.msg and "docs/deploy.md" in warning.hint
    assert not warning.is_serious()  # a warning: migrate still runs
    assert autovacuum_warnings("default", "on") == []


@pytest.mark.postgres
def test_check_on_postgresql_says_what_its_server_does(postgres_service):
    # The machines these tests run on may have autovacuum either way: the
    # check must report exactly what this server says.
    with psycopg.connect(postgres_service) as db:
        (setting,) = db.execute("SHOW autovacuum").fetchone()
    env = servers.postgres_env(postgres_service)
    result = servers.manage("check", "--database", "default", env=env)
    assert result.returncode == 0, result.stderr
    said = result.stdout + result.stderr
    assert (AUTOVACUUM_OFF in said) == (setting != "on"), said


def test_check_on_sqlite_has_nothing_to_say(tmp_path):
    env = servers.sqlite_env(tmp_path)
    result = servers.manage("check", "--database", "default", env=env)
    assert result.returncode == 0, result.stderr
    assert AUTOVACUUM_OFF not in result.stdout + result.stderr
    assert "no issues" in result.stdout
