"""The rooms app's HTTP views along a player's real path (rooms/views.py).

A first visit chooses a nickname, then quick play (POST /play/GAME/), a private
room, a friend who types the code, the room page and its JSON, and a finished
game's page and record. Every bad input (unknown game, bad code, wrong method,
no nickname, a banned guest) gets a clear answer and changes nothing.
Sockets are not needed for any of these; the Django test client drives them.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from games import snakes as snakes_rules
from rooms import services
from rooms.models import Ban, Game, Room, Seat
from tests.history.factories import record_for, stored_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh(settings):
    settings.KHELAGHOR_BOT_DELAY = 0
    cache.clear()
    services.forget_cached_states()
    yield
    cache.clear()


def guest(name: str = "Rumi", **extra) -> Client:
    client = Client(**extra)
    assert client.post(reverse("nickname"), {"name": name}).status_code == 302
    return client


def said(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def code_in(response) -> str:
    assert response.status_code == 302, response
    location = response["Location"]
    assert location.startswith("/r/") and location.endswith("/"), location
    return location[3:-1]


# ---- the nickname ---------------------------------------------------------------


def test_a_nickname_returns_to_where_the_visitor_was_going_and_only_on_this_site():
    client = Client()
    kept = client.post(reverse("nickname"), {"name": " রুমি  খান ", "next": "/rules/ludo/"})
    assert kept["Location"] == "/rules/ludo/" and client.session["nickname"] == "রুমি খান"
    away = client.post(reverse("nickname"), {"name": "Rumi", "next": "https://evil.example/"})
    assert away["Location"] == "/"
    # A bare word is no path here: it was taken for a view's name (a 500).
    for word in ("ABCD", "home", "room", "evil.example", "//evil.example/"):
        response = client.post(reverse("nickname"), {"name": "Rumi", "next": word})
        assert (response.status_code, response["Location"]) == (302, "/"), word
        page = client.get(reverse("home"), {"next": word})
        assert page.status_code == 200 and page.context["next"] == "", word
    assert client.get(reverse("home"), {"next": "/r/ABCD/"}).context["next"] == "/r/ABCD/"


def test_a_bad_nickname_is_refused_with_a_reason_and_nothing_kept():
    client = Client()
    response = client.post(reverse("nickname"), {"name": "x" * 21})
    assert response["Location"] == reverse("home") + "#nickname"
    assert said(response) == ["ডাকনামে সর্বোচ্চ ২০টি অক্ষর থাকতে পারে"]  # Bengali digits
    assert "nickname" not in client.session
    assert client.get(reverse("nickname")).status_code == 405


def test_a_refused_nickname_is_said_in_the_nickname_card_where_the_page_opens():
    """The redirect opens the home page at #nickname: the reason is said there,
    not in the messages at the top of the page, out of sight on a phone."""
    client = Client()
    page = client.post(reverse("nickname"), {"name": "x" * 21}, follow=True).content.decode()
    card = page[page.index('id="nickname"'):]
    card = card[:card.index("</section>")]
    assert 'data-testid="nickname-refused"' in card and "২০টি অক্ষর" in card
    top = page[page.index('<main id="main">'):page.index('id="nickname"')]
    assert "২০টি অক্ষর" not in top


# ---- quick play -------------------------------------------------------------------


def test_quick_play_seats_two_strangers_at_one_public_table():
    rumi, tanvir = guest("Rumi"), guest("Tanvir")
    code = code_in(rumi.post(reverse("play_now", args=["ludo"])))
    assert code_in(tanvir.post(reverse("play_now", args=["ludo"]))) == code
    room = Room.objects.get(code=code)
    assert (room.game, room.visibility, room.status) == ("ludo", "public", "lobby")
    names = list(room.seats.filter(kind=Seat.Kind.HUMAN).order_by("index")
                 .values_list("name", flat=True))
    assert names == ["Rumi", "Tanvir"]
    # Asking again finds the seat already held, not a second one.
    assert code_in(rumi.post(reverse("play_now", args=["ludo"]))) == code
    assert room.seats.filter(kind=Seat.Kind.HUMAN).count() == 2

    page = rumi.get(f"/r/{code}/")
    assert page.status_code == 200
    snapshot = page.context["snapshot"]
    assert snapshot["you"]["seat"] == 0 and snapshot["room"]["visibility"] == "public"
    assert page.context["share_url"] == f"http://testserver/r/{code}/"


def test_the_home_page_leads_back_to_the_tables_where_the_player_sits():
    rumi, tanvir = guest("Rumi"), guest("Tanvir")
    assert "your-tables" not in rumi.get(reverse("home")).content.decode()
    code = code_in(rumi.post(reverse("play_now", args=["ludo"])))
    page = rumi.get(reverse("home")).content.decode()
    assert f'href="/r/{code}/"' in page and "শুরুর অপেক্ষায়" in page
    # Only one's own: a player at no table sees none.
    assert "your-tables" not in tanvir.get(reverse("home")).content.decode()
    Room.objects.filter(code=code).update(status=Room.Status.CLOSED)
    assert f"/r/{code}/" not in rumi.get(reverse("home")).content.decode()


def test_quick_play_refuses_an_unknown_game_a_get_and_a_guest_with_no_name():
    rumi = guest()
    assert rumi.post(reverse("play_now", args=["chess"])).status_code == 404
    assert rumi.get(reverse("play_now", args=["snakes"])).status_code == 405
    nameless = Client().post(reverse("play_now", args=["snakes"]))
    assert nameless["Location"] == f"{reverse('home')}?next=/#nickname"
    assert not Room.objects.exists()
    # A pace the site does not have: back home, told why, seated nowhere.
    response = rumi.post(reverse("play_now", args=["snakes"]), {"pace": "fast"})
    assert response["Location"] == reverse("home")
    assert said(response) and not Room.objects.exists()


def test_a_banned_guest_is_told_so_and_gets_no_seat():
    rumi = guest()
    Ban.objects.create(session_key=rumi.session.session_key, reason="abuse")
    response = rumi.post(reverse("play_now", args=["snakes"]))
    assert response["Location"] == reverse("home")
    assert said(response) == [
        "আপনি রুম খুলতে বা যোগ দিতে পারবেন না: একজন মডারেটর আপনাকে নিষিদ্ধ করেছেন"]
    assert not Seat.objects.filter(session_key=rumi.session.session_key).exists()


# ---- a private room and a friend who types its code ---------------------------------


def test_a_private_room_with_house_rules_and_a_friend_who_types_the_code():
    host = guest("Tanvir")
    code = code_in(host.post(reverse("room_new"), {
        "game": "ludo", "seats": "3", "pace": "party", "home_bonus_roll": "on"}))
    room = Room.objects.get(code=code)
    assert (room.visibility, room.pace, room.options["home_bonus_roll"]) == (
        "private", "party", True)
    snakes = code_in(host.post(reverse("room_new"), {
        "game": "snakes", "seats": "2", "board": "gentle"}))
    assert Room.objects.get(code=snakes).options["board"] == snakes_rules.BOARDS["gentle"]

    friend = guest("রুমি")
    for typed in (code.lower(), f" {code[:2]} {code[2:]} ", f"https://khelaghor.example/r/{code}/"):
        assert friend.get(reverse("join"), {"code": typed})["Location"] == f"/r/{code}/"
    assert friend.get(f"/r/{code.lower()}/")["Location"] == f"/r/{code}/"
    page = friend.get(f"/r/{code}/")
    assert page.status_code == 200 and page.context["snapshot"]["you"]["seat"] is None
    assert f'data-code="{code}"' in page.content.decode()


@pytest.mark.parametrize(("data", "message"), [
    ({"game": "chess", "seats": "4"}, "Unknown game"),
    ({"game": "snakes", "seats": "many"}, ""),
    ({"game": "snakes", "seats": "9"}, ""),
    ({"game": "snakes", "seats": "2", "pace": "sprint"}, ""),
    ({"game": "snakes", "seats": "2", "board": "lava"}, "lava"),
])
def test_a_room_with_bad_settings_is_refused_with_a_message(data, message):
    host = guest("Tanvir")
    response = host.post(reverse("room_new"), data, HTTP_ACCEPT_LANGUAGE="en")
    assert response["Location"] == reverse("home")
    shown = said(response)
    assert len(shown) == 1 and shown[0] and message in shown[0]
    assert not Room.objects.exists()


def test_creating_a_room_needs_a_post_and_a_nickname():
    assert guest().get(reverse("room_new")).status_code == 405
    nameless = Client().post(reverse("room_new"), {"game": "snakes", "seats": "2"})
    assert nameless["Location"].endswith("#nickname") and not Room.objects.exists()


@pytest.mark.parametrize("typed", ["", "ab", "ZZ1Z", "ZZZZZ", "IIII"])
def test_a_code_that_cannot_be_a_room_is_a_plain_not_found(typed):
    response = guest().get(reverse("join"), {"code": typed})
    assert response.status_code == 404
    assert response.templates[0].name == "rooms/not_found.html"


def test_the_room_doors_answer_unknown_codes_and_wrong_methods():
    client = guest()
    assert client.get("/r/ZZZZ/").status_code == 404
    assert client.get("/r/zz1z/").status_code == 404
    api = client.get("/api/rooms/ZZZZ/")
    assert api.status_code == 404 and api.json()["code"] == "not_found"
    assert client.post(reverse("join"), {"code": "ABCD"}).status_code == 405
    assert client.post("/r/ABCD/").status_code == 405
    assert client.post("/api/rooms/ABCD/").status_code == 405


# ---- boards, finished games and their records -----------------------------------------


def test_a_ludo_board_is_cacheable_data_and_an_unknown_board_is_404():
    client = Client()
    square = client.get(reverse("ludo_geometry", args=["square"]))
    assert square.status_code == 200 and square["Cache-Control"] == "public, max-age=86400"
    assert square.json()["starts"]
    assert client.get(reverse("ludo_geometry", args=["octagon"])).status_code == 404


def test_a_finished_game_has_a_page_and_a_record_and_a_game_in_play_has_neither():
    game_row = stored_game(record_for("liars_dice"))
    client = Client()
    page = client.get(reverse("game_page", args=[game_row.id]))
    assert page.status_code == 200 and page.context["verdict"] is not None
    record = client.get(reverse("game_record", args=[game_row.id]))
    assert record.status_code == 200
    assert record["Content-Disposition"] == (
        f'attachment; filename="khelaghor-liars_dice-{game_row.id}.json"')
    body = json.loads(record.content)
    assert body["fairness"]["server_seed"] == game_row.server_seed
    assert body["events"] == list(game_row.moves.order_by("seq").values_list("event", flat=True))

    Game.objects.filter(id=game_row.id).update(status=Game.Status.IN_PROGRESS)
    assert client.get(reverse("game_page", args=[game_row.id])).status_code == 404
    assert client.get(reverse("game_record", args=[game_row.id])).status_code == 404
    assert client.get(reverse("game_page", args=[game_row.id + 999])).status_code == 404
