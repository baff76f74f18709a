"""A fourth game, High Roll (tests/toy/highroll.py), added by its own files and
one registry line (tests/toy/conftest.py), runs end to end through the real
site: the pages offer it, a host creates a table with its house rule, players
join, start and play over the room socket, timeouts act for a player, and the
finished game has a record, a replay, a verdict, a luck report and its events
in the admin's filter. Nothing in rooms/, config/ or templates/ names it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from django.urls import reverse

from config.asgi import application
from rooms import clock, services
from rooms.models import Game, MoveLog, Room

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def visitor(name: str) -> Client:
    browser = Client()
    browser.post(reverse("nickname"), {"name": name})
    return browser


def kg_games(html: str) -> dict:
    found = re.search(r'<script id="kg-games" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page has no #kg-games"
    return json.loads(found.group(1))


def test_no_site_file_names_the_fourth_game():
    for folder in ("rooms", "config", "templates", "static", "games"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".html", ".js", ".css"):
                assert "highroll" not in path.read_text(encoding="utf-8"), path


def test_the_pages_offer_the_fourth_game():
    home = visitor("Tanvir").get(reverse("home")).content.decode()
    assert 'data-testid="play-highroll"' in home and 'data-testid="toy-icon"' in home
    assert "The lower roll wins" in home and 'data-game="highroll"' in home
    assert reverse("rules", args=["high-roll"]) in home
    rules = Client().get(reverse("rules", args=["high-roll"]))
    assert rules.status_code == 200 and b'data-testid="toy-rules"' in rules.content
    assert Client().get(reverse("rules", args=["chess"])).status_code == 404


async def _connect(code: str, session_key: str) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=[
        (b"origin", b"http://testserver"), (b"host", b"testserver"),
        (b"cookie", f"sessionid={session_key}".encode())])
    connected, _ = await socket.connect()
    assert connected
    return socket


async def _receive(socket, kind, where=lambda m: True):
    while True:
        message = await socket.receive_json_from(timeout=5)
        if message["type"] == kind and where(message):
            return message


@async_to_sync
async def play_the_first_roll_over_the_socket(code: str, host_key: str, guest_key: str) -> dict:
    host = await _connect(code, host_key)
    guest = await _connect(code, guest_key)
    await _receive(host, "snapshot")
    await _receive(guest, "snapshot")
    await guest.send_json_to({"type": "join", "client_seed": "toy"})
    joined = await _receive(host, "update", lambda m: m["events"])
    assert joined["events"] == [{"type": "joined", "seat": 1}]
    await host.send_json_to({"type": "start"})
    started = await _receive(host, "update", lambda m: m["room"]["status"] == "playing")
    assert started["game"]["view"] == {"game": "highroll", "rolls": [None, None], "to_move": 0,
                                       "placings": [], "low_wins": True, "over": False}
    assert started["game"]["legal"] == [{"type": "roll"}]
    await host.send_json_to({"type": "action", "version": started["version"],
                             "action": {"type": "roll"}})
    rolled = await _receive(guest, "update", lambda m: m["version"] > started["version"])
    await host.disconnect()
    await guest.disconnect()
    return rolled


def test_the_fourth_game_runs_end_to_end():
    host = visitor("Tanvir")
    created = host.post(reverse("room_new"), {"game": "highroll", "seats": "2",
                                              "pace": "normal", "low_wins": "on"})
    code = created["Location"].rstrip("/").rsplit("/", 1)[-1]
    room = Room.objects.get(code=code)
    assert (room.game, room.options) == ("highroll", {"low_wins": True})

    page = host.get(reverse("room", args=[code])).content.decode()
    assert "toy/highroll.js" in page and "toy/highroll.css" in page
    assert "js/ludo.js" not in page and "js/liars_dice.js" not in page  # only its own board
    facts = kg_games(page)["highroll"]
    assert facts["title"] == "High Roll" and facts["easy_bot"] is None
    assert facts["host_options"] == [{"name": "low_wins", "label": "The lower roll wins",
                                      "default": False}]
    assert facts["dice"] == [{"event": "roll", "field": "value", "by_seat": False}]

    guest_session = SessionStore()
    guest_session["nickname"] = "রুমি"
    guest_session.create()
    rolled = play_the_first_roll_over_the_socket(code, host.session.session_key,
                                                 guest_session.session_key)
    assert [e["type"] for e in rolled["events"]] == ["roll"]
    assert rolled["events"][0]["seat"] == 0 and rolled["game"]["view"]["to_move"] == 1

    # The guest never rolls: each deadline rolls for them (and for the host
    # after a tie), as for any game, until the game is over; an absent player's
    # seat is taken over by a computer after 45 s away.
    timeouts = 0
    for _ in range(60):
        game_row = services.current_game(Room.objects.get(code=code))
        if game_row.status != Game.Status.IN_PROGRESS:
            break
        clock.advance((game_row.deadline - clock.now()).total_seconds() + 0.1)
        change = services.deadline_fire(game_row.id, game_row.seq)
        types = [e["type"] for e in change.events]
        assert "roll" in types  # a computer rolled for the player who did not
        timeouts += types.count("timeout")  # none once a computer holds the seat
    game_row = Game.objects.get(room__code=code)
    assert game_row.status == Game.Status.FINISHED and timeouts >= 1

    record = json.loads(host.get(reverse("game_record", args=[game_row.id])).content)
    assert record["game"] == "highroll" and record["options"] == {"low_wins": True}
    result = next(e for e in record["events"] if e["type"] == "result")
    rolls = [e for e in record["events"] if e["type"] == "roll"]
    last_two = {e["seat"]: e["value"] for e in rolls[-2:]}
    assert last_two[result["winner"]] < last_two[1 - result["winner"]]  # low wins

    replay = host.get(reverse("game_replay", args=[game_row.id])).json()
    assert len(replay["frames"]) == len(rolls) + 1
    assert replay["frames"][-1]["view"]["over"] is True

    verdict = host.post(reverse("verify"), {"record": json.dumps(record)}).content.decode()
    assert 'data-ok="true"' in verdict and "highroll" in kg_games(verdict)

    results = host.get(reverse("game_page", args=[game_row.id])).content.decode()
    assert 'data-ok="true"' in results and "toy/highroll.js" in results
    luck = host.get(reverse("game_luck", args=[game_row.id])).json()
    assert luck["kind"] == "rolled" and sum(s["dice"] for s in luck["seats"]) == len(rolls)


def test_the_admin_filters_the_fourth_games_events(admin_client):
    room = services.room_create(actor=services.Actor("s-host", "Tanvir"), game="highroll",
                                seats=2)
    services.bot_add(room.code, services.Actor("s-host", "Tanvir"))
    services.game_start(room.code, services.Actor("s-host", "Tanvir"))
    for _ in range(60):
        game_row = services.current_game(Room.objects.get(code=room.code))
        if game_row.status != Game.Status.IN_PROGRESS:
            break
        clock.advance((game_row.deadline - clock.now()).total_seconds() + 0.1)
        services.deadline_fire(game_row.id, game_row.seq)
    assert MoveLog.objects.filter(event__type="result").count() == 1
    changelist = reverse("admin:rooms_movelog_changelist")
    page = admin_client.get(changelist).content.decode()
    assert "?event_type=result" in page  # the filter lists the game's own event type
    filtered = admin_client.get(changelist, {"event_type": "result"}).context["cl"]
    assert [move.event["type"] for move in filtered.result_list] == ["result"]
