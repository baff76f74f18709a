"""/healthz proves the database and the channel layer work, and names the timer backend."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_healthz_reports_every_part_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "database": "ok",
        "channel_layer": "ok",
        "timers": "InProcessTimers",
    }


def test_healthz_is_503_when_the_database_fails(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise connection.Database.OperationalError("database is down")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False
    assert body["database"].startswith("error")
    assert body["channel_layer"] == "ok"
