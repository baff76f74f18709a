"""/healthz proves the database and the channel layer work, and names the timer backend."""

import pytest
from django.db import connection, connections

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

    # On the class: the check runs on a thread with a connection of its own.
    monkeypatch.setattr(type(connections["default"]), "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False
    assert body["database"].startswith("error")
    assert body["channel_layer"] == "ok"


def test_probes_during_an_outage_log_its_first_warning_not_one_each(client, monkeypatch, caplog):
    """A balancer and systemd probe every few seconds: while the database is
    away, each probe logged a warning of its own."""
    from config import views

    def broken_cursor(*args, **kwargs):
        raise connection.Database.OperationalError("database is down")

    monkeypatch.setattr(type(connections["default"]), "cursor", broken_cursor)
    for kept in views.logger.filters:  # an earlier test's outage would still be "going on"
        monkeypatch.setattr(kept, "state", {})
    with caplog.at_level("WARNING", logger="config.views"):
        for _ in range(10):
            assert client.get("/healthz").status_code == 503
    said = [r.getMessage() for r in caplog.records if r.name == "config.views"]
    assert said == ["healthz: database check failed: database is down"]


def test_healthz_answers_a_loopback_probe_whatever_the_allowed_hosts(client, settings):
    """As deployed, DJANGO_ALLOWED_HOSTS names the site, and the probes ask each
    process on 127.0.0.1:PORT: the probe gets its answer, while a page asked
    with that host is still refused."""
    settings.ALLOWED_HOSTS = ["khelaghor.example"]
    response = client.get("/healthz", HTTP_HOST="127.0.0.1:8001")
    assert response.status_code == 200, response.content
    assert response.json()["ok"] is True
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "Content-Security-Policy" in response
    assert client.get("/", HTTP_HOST="127.0.0.1:8001").status_code == 400
    assert client.get("/", HTTP_HOST="khelaghor.example").status_code == 200


async def test_healthz_says_the_database_timed_out_rather_than_hanging(async_client, monkeypatch):
    """A PostgreSQL that does not answer: the probe gets its 503 after
    DATABASE_TIMEOUT, naming the database, not a hang of its own. (Through the
    ASGI path, as daphne serves it: the check's thread is left waiting.)"""
    import threading

    from config import views

    release = threading.Event()
    returned = []

    def hanging_check():
        release.wait(30)
        returned.append(True)
        return "ok"

    monkeypatch.setattr(views, "_check_database", hanging_check)
    monkeypatch.setattr(views, "DATABASE_TIMEOUT", 0.2)
    try:
        response = await async_client.get("/healthz")
        answered_while_hanging = not returned
    finally:
        release.set()
    assert answered_while_hanging, "the answer waited for the hanging check"
    assert response.status_code == 503
    assert response.json()["database"] == "error: timeout"
    assert response.json()["channel_layer"] == "ok"
