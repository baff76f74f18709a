"""Guessing room codes: one session's guessing is limited at every door that
takes a code, and never locks out the other players who share its address.

Django's test client gives every request the same address (127.0.0.1), which is
exactly the carrier-NAT case: many sessions, one address.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from config.ratelimit import FailureWindow
from rooms import guessing
from rooms.models import Report, Room

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}
UNKNOWN = ["ZZZZ", "ZZZY", "ZZZX", "ZZZW", "ZZZV"]


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()
    yield
    cache.clear()


def player(name: str) -> Client:
    client = Client()
    assert client.post(reverse("nickname"), {"name": name}).status_code == 302
    return client


def new_room(host: Client, game: str = "snakes") -> str:
    response = host.post(reverse("room_new"), {"game": game, "seats": "2"})
    assert response.status_code == 302, response
    return response["Location"].split("/")[2]


def doors(client: Client, code: str) -> dict[str, object]:
    """Every HTTP door that takes a code, asked for ``code``."""
    return {
        "join": client.get(reverse("join"), {"code": code}),
        "page": client.get(f"/r/{code}/"),
        "api": client.get(f"/api/rooms/{code}/"),
        "report": client.post(f"/r/{code}/report/", {"reason": "spam"}, **JSON),
    }


def ask(client: Client, code: str, door: int):
    """One of the four HTTP doors, by number."""
    if door == 0:
        return client.get(reverse("join"), {"code": code})
    if door == 1:
        return client.get(f"/r/{code}/")
    if door == 2:
        return client.get(f"/api/rooms/{code}/")
    return client.post(f"/r/{code}/report/", {"reason": "spam"}, **JSON)


def guess_until_refused(guesser: Client) -> None:
    """Unknown codes at every door in turn until the session's limit is spent."""
    for i in range(guessing.SESSION_MISSES):
        answer = ask(guesser, UNKNOWN[i % len(UNKNOWN)], i % 4)
        assert answer.status_code == 404, (i, answer.status_code)


def bengali_minutes(seconds: int) -> str:
    return str(math.ceil(seconds / 60)).translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯"))


def assert_refused_with_a_time(response) -> int:
    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert 0 < wait <= guessing.WINDOW_SECONDS
    body = response.content.decode()
    if response["Content-Type"].startswith("application/json"):
        answer = response.json()
        assert answer["code"] == "rate_limited" and answer["retry_after"] == wait
        body = answer["message"]
    # Bengali first, the minutes left (rounded up) in Bengali digits.
    assert f"{bengali_minutes(wait)} মিনিট পরে আবার চেষ্টা করুন" in body, body
    return wait


def test_misses_at_every_door_count_together_and_the_refusal_says_when(settings):
    host = player("Tanvir")
    code = new_room(host)
    guesser = player("Guesser")
    guess_until_refused(guesser)

    refused = doors(guesser, code)  # even a code that exists: the limit is no oracle
    for response in refused.values():
        assert_refused_with_a_time(response)
    assert "text/html" in refused["page"]["Content-Type"]
    assert "আবার চেষ্টা" in refused["page"].content.decode()
    assert not Report.objects.exists()

    english = guesser.get(f"/r/{code}/", HTTP_ACCEPT_LANGUAGE="en")
    assert english.status_code == 429
    minutes = math.ceil(int(english["Retry-After"]) / 60)
    assert f"Please try again in {minutes} minute" in english.content.decode()


def test_a_neighbour_at_the_same_address_still_joins_and_the_host_gets_back(settings):
    host = player("Tanvir")
    code = new_room(host)
    guesser = player("Guesser")
    guess_until_refused(guesser)
    assert guesser.get(f"/r/{code}/").status_code == 429

    neighbour = player("Rumi")
    assert neighbour.get(reverse("join"), {"code": code.lower()})["Location"] == f"/r/{code}/"
    assert neighbour.get(f"/r/{code}/").status_code == 200
    assert neighbour.get(reverse("join"), {"code": "ZZZZ"}).status_code == 404  # a plain miss
    assert host.get(f"/r/{code}/").status_code == 200
    assert host.get(f"/api/rooms/{code}/").json()["you"]["seat"] == 0


def test_a_seated_guesser_still_reaches_the_room_it_sits_in(settings):
    host = player("Tanvir")
    code = new_room(host)
    guess_until_refused(host)
    assert host.get(reverse("join"), {"code": "QQQQ"}).status_code == 429
    assert host.get(f"/r/{code}/").status_code == 200
    assert host.get(f"/api/rooms/{code}/").json()["you"]["seat"] == 0
    assert host.post(f"/r/{code}/report/", {"reason": "spam"}, **JSON).status_code == 200


def test_the_address_limit_refuses_misses_only(monkeypatch):
    """Past the address's (far higher) limit every session's misses are refused,
    but a code that exists is still answered, for anyone."""
    monkeypatch.setattr(guessing, "_address_misses",
                        FailureWindow("test-address", 3, guessing.WINDOW_SECONDS))
    host = player("Tanvir")
    code = new_room(host)
    for code_guess in UNKNOWN[:3]:
        assert Client().get(reverse("join"), {"code": code_guess}).status_code == 404
    fresh = Client()
    assert_refused_with_a_time(fresh.get(reverse("join"), {"code": "ZZZA"}))
    assert fresh.get(reverse("join"), {"code": code}).status_code == 302
    assert Client().get(f"/r/{code}/").status_code == 200


def test_a_private_room_shows_a_stranger_the_invitation_only():
    host = player("Tanvir")
    code = new_room(host)
    assert Room.objects.get(code=code).visibility == Room.Visibility.PRIVATE
    stranger = player("Rumi").get(f"/api/rooms/{code}/").json()
    assert stranger == {
        "type": "invitation",
        "room": {"code": code, "game": "snakes", "status": "lobby", "pace": "normal",
                 "visibility": "private",
                 "seats": [{"seat": 0, "kind": "taken"}, {"seat": 1, "kind": "open"}]},
    }
    seated = host.get(f"/api/rooms/{code}/").json()
    assert seated["type"] == "snapshot" and seated["room"]["seats"][0]["name"] == "Tanvir"


def test_a_public_room_shows_anyone_the_spectators_snapshot():
    host = player("Tanvir")
    response = host.post(reverse("play_now", args=["snakes"]))
    code = response["Location"].split("/")[2]
    seen = player("Rumi").get(f"/api/rooms/{code}/").json()
    assert seen["type"] == "snapshot" and seen["you"]["seat"] is None
    assert any(seat["name"] == "Tanvir" for seat in seen["room"]["seats"])


def test_a_window_tells_how_long_is_left(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr("config.ratelimit.time", SimpleNamespace(time=lambda: now[0]))
    window = FailureWindow("test-window", 2, 600)
    window.count("k")
    assert window.retry_after("k") == 0
    now[0] += 100
    window.count("k")
    assert window.retry_after("k") == 500 and window.exceeded("k")
    now[0] += 499.5
    assert window.retry_after("k") == 1
    assert window.retry_after("other") == 0
