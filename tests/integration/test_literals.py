"""``rooms.rows.run`` writes a move's values into its statements itself
(docs/performance.md): on a real PostgreSQL, every kind of value reads back as
psycopg's own binding reads it, text a player typed included, and what cannot
be stored fails as it did before. Run in a process of its own, as a server runs."""

from __future__ import annotations

import pytest

from tests.integration.conftest import run_probe

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def probe(postgres_service):
    return run_probe("literals_probe", postgres_service)


def test_every_value_reads_back_as_psycopg_binds_it(probe):
    assert probe["mismatches"] == []
    assert probe["bound"] == probe["statements"] > 30  # all written in, none handed back
    # JSON comes back as its text (Django decodes it), the rest as values.
    assert probe["kinds"]["json 2"] == "str"
    assert probe["kinds"]["time 2026-12-01T13:00:00+06:00"] == "datetime"
    assert probe["kinds"]["text 6"] == "str" and probe["kinds"]["big"] == "int"


def test_a_typed_name_is_stored_and_read_back_unchanged(probe):
    assert probe["name_kept"] and probe["time_kept"]


def test_a_rows_fields_are_prepared_as_djangos_save_prepares_them(probe):
    assert probe["prepared_unlike_django"] == []
    assert probe["prepared_fields"] > 40


def test_a_nul_is_refused_and_changes_nothing(probe):
    assert probe["nul"] == "DataError"
    assert probe["after_nul"]


def test_the_kept_cursor_follows_a_new_connection(probe):
    assert probe["new_cursor_for_new_connection"]
