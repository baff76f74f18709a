"""Accounts are optional: a guest who signs up or signs in keeps their games,
their seat at a table in play, and (when banned) their ban."""

from __future__ import annotations

import pytest
from django.core import mail
from django.core.cache import cache
from django.urls import reverse

from rooms import errors, services
from rooms.models import Ban, Seat
from tests.history.factories import record_for, stored_game

pytestmark = pytest.mark.django_db
PASSWORD = "khela-ghor-2024!"


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def guest(client, name="Rumi") -> str:
    client.post(reverse("nickname"), {"name": name})
    return client.session.session_key


def test_playing_never_needs_an_account(client):
    guest(client)
    response = client.post(reverse("room_new"), {"game": "snakes", "seats": "2"})
    assert response.status_code == 302 and response["Location"].startswith("/r/")


def test_a_guest_who_signs_up_keeps_their_history_and_the_profile_shows_it(client):
    key = guest(client)
    snakes = [record_for("snakes", seed=s) for s in (7, 8)]
    ludo, liars = record_for("ludo"), record_for("liars_dice")
    games = [stored_game(r, humans={0: key}) for r in snakes]
    games.append(stored_game(ludo, humans={ludo["placings"][-1]: key}))  # lost
    games.append(stored_game(liars, humans={liars["placings"][0]: key}))  # won
    stored_game(record_for("snakes", seed=9), humans={0: "someone-else"})
    response = client.post(reverse("signup"), {"username": "rumi", "password1": PASSWORD,
                                               "password2": PASSWORD, "email": ""})
    assert response.status_code == 302 and response["Location"] == reverse("profile")
    user = response.wsgi_request.user
    assert Seat.objects.filter(user=user).count() == 4
    # The session got a new key at login; the seats follow it.
    assert client.session.session_key != key
    assert Seat.objects.filter(session_key=client.session.session_key).count() == 4

    profile = client.get(reverse("profile"))
    assert profile.status_code == 200 and profile.context["played"] == 4
    stats = {row["game"]: (row["played"], row["won"]) for row in profile.context["stats"]}
    assert stats == {"snakes": (2, sum(r["placings"][0] == 0 for r in snakes)),
                     "ludo": (1, 0), "liars_dice": (1, 1)}
    html = profile.content.decode()
    for game_row in games:
        assert reverse("game_page", args=[game_row.id]) in html


def test_the_history_follows_the_account_to_another_device(client, django_user_model):
    from django.test import Client

    key = guest(client)
    game_row = stored_game(record_for("snakes"), humans={1: key})
    client.post(reverse("signup"), {"username": "rumi", "password1": PASSWORD,
                                    "password2": PASSWORD})
    phone = Client()
    response = phone.post(reverse("login"), {"username": "rumi", "password": PASSWORD})
    assert response.status_code == 302
    profile = phone.get(reverse("profile"))
    assert profile.context["played"] == 1
    assert reverse("game_page", args=[game_row.id]) in profile.content.decode()


def test_signing_in_mid_game_keeps_the_seat_and_later_games_count(client, django_user_model,
                                                                   settings):
    settings.KHELAGHOR_BOT_DELAY = 1000
    django_user_model.objects.create_user("rumi", password=PASSWORD)
    key = guest(client)
    client.post(reverse("room_new"), {"game": "snakes", "seats": "2"})
    seat = Seat.objects.get(session_key=key)
    client.post(reverse("login"), {"username": "rumi", "password": PASSWORD})
    new_key = client.session.session_key
    seat.refresh_from_db()
    assert seat.session_key == new_key and seat.user.username == "rumi"
    assert services.seat_index_of(seat.room.code, new_key) == 0


def test_a_banned_guest_stays_banned_after_signing_up(client):
    key = guest(client)
    Ban.objects.create(session_key=key, reason="spam")
    client.post(reverse("signup"), {"username": "rumi", "password1": PASSWORD,
                                    "password2": PASSWORD})
    user_id = client.session["_auth_user_id"]
    actor = services.Actor(client.session.session_key, "Rumi", int(user_id))
    with pytest.raises(errors.Banned):
        services.room_create(actor=actor, game="snakes", seats=2)


def test_the_guest_profile_shows_this_browser_s_games(client):
    key = guest(client)
    stored_game(record_for("snakes"), humans={0: key})
    page = client.get(reverse("profile"))
    assert page.status_code == 200 and page.context["played"] == 1
    assert reverse("signup") in page.content.decode()


def test_login_is_rate_limited_per_username_with_a_clear_message(client, django_user_model):
    django_user_model.objects.create_user("rumi", password=PASSWORD)
    for _ in range(10):
        response = client.post(reverse("login"), {"username": "rumi", "password": "wrong"})
        assert response.status_code == 200
    # Even the right password is refused now, and the page says why.
    response = client.post(reverse("login"), {"username": "rumi", "password": PASSWORD})
    assert response.status_code == 200
    assert not response.wsgi_request.user.is_authenticated
    assert "15" in response.content.decode()
    assert response.context["form"].errors["__all__"][0].startswith(("Too many", "অনেকবার"))
    cache.clear()
    response = client.post(reverse("login"), {"username": "rumi", "password": PASSWORD})
    assert response.status_code == 302


def test_login_is_rate_limited_per_address_across_usernames(client, django_user_model):
    from accounts_optional.forms import ADDRESS_MAX_FAILURES

    django_user_model.objects.create_user("rumi", password=PASSWORD)
    for i in range(ADDRESS_MAX_FAILURES):
        client.post(reverse("login"), {"username": f"nobody{i}", "password": "x"})
    response = client.post(reverse("login"), {"username": "rumi", "password": PASSWORD})
    assert not response.wsgi_request.user.is_authenticated
    assert response.context["form"].errors["__all__"][0].startswith(("Too many", "অনেকবার"))


def test_a_wrong_password_from_one_address_does_not_lock_the_name_at_another(
        client, django_user_model):
    """Anyone can type a player's name: ten wrong passwords lock that name for
    that address only, and a few wrong names do not lock the address."""
    from django.test import Client

    django_user_model.objects.create_user("rumi", password=PASSWORD)
    for _ in range(10):
        client.post(reverse("login"), {"username": "rumi", "password": "wrong"},
                    REMOTE_ADDR="198.51.100.7")
    locked = client.post(reverse("login"), {"username": "rumi", "password": PASSWORD},
                         REMOTE_ADDR="198.51.100.7")
    assert not locked.wsgi_request.user.is_authenticated
    elsewhere = Client().post(reverse("login"), {"username": "rumi", "password": PASSWORD},
                              REMOTE_ADDR="203.0.113.20")
    assert elsewhere.status_code == 302 and elsewhere.wsgi_request.user.is_authenticated

    neighbour = Client()
    for i in range(10):
        neighbour.post(reverse("login"), {"username": f"nobody{i}", "password": "x"},
                       REMOTE_ADDR="203.0.113.20")
    after = neighbour.post(reverse("login"), {"username": "rumi", "password": PASSWORD},
                           REMOTE_ADDR="203.0.113.20")
    assert after.status_code == 302


def test_sign_out_password_change_and_reset(client, django_user_model):
    user = django_user_model.objects.create_user("rumi", email="rumi@example.com",
                                                 password=PASSWORD)
    client.force_login(user)
    assert client.get(reverse("password_change")).status_code == 200
    response = client.post(reverse("password_change"), {
        "old_password": PASSWORD, "new_password1": "notun-khela-99", "new_password2":
        "notun-khela-99"})
    assert response.status_code == 302
    assert client.post(reverse("logout")).status_code == 302
    assert not client.get(reverse("profile")).wsgi_request.user.is_authenticated
    response = client.post(reverse("password_reset"), {"email": "rumi@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1 and "/accounts/reset/" in mail.outbox[0].body
    link = next(w for w in mail.outbox[0].body.split() if "/accounts/reset/" in w)
    path = link.split("testserver", 1)[1]
    form = client.get(path, follow=True)
    assert form.status_code == 200 and form.context["validlink"]
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "tritio-khela-77",
                                                    "new_password2": "tritio-khela-77"})
    assert done.status_code == 302
    assert client.login(username="rumi", password="tritio-khela-77")


def test_account_pages_render_in_bengali_first(client):
    for name in ("login", "signup", "password_reset", "profile"):
        page = client.get(reverse(name))
        assert page.status_code == 200, name
        assert '<html lang="bn"' in page.content.decode()
    assert reverse("login") in client.get("/").content.decode()


def test_an_account_holder_is_called_by_their_name_and_keeps_it_after_signing_out(
        client, django_user_model):
    """A drill signed up without a nickname: the home page then asked the new
    account holder "What should we call you? No sign-up, no password", and
    signing out forgot the name."""
    client.post(reverse("signup"), {"username": "রুমি", "password1": PASSWORD,
                                    "password2": PASSWORD, "email": ""})
    assert client.session["nickname"] == "রুমি"
    assert "nickname-input" not in client.get(reverse("home")).content.decode()
    client.post(reverse("logout"))
    assert client.session["nickname"] == "রুমি"
    assert not client.get(reverse("home")).wsgi_request.user.is_authenticated
    # A nickname chosen before signing in is kept, not replaced by the username.
    client.post(reverse("nickname"), {"name": "Mitu"})
    client.post(reverse("login"), {"username": "রুমি", "password": PASSWORD})
    assert "_auth_user_id" in client.session and client.session["nickname"] == "Mitu"
    # A username the nickname rules refuse (too long) leaves the question.
    django_user_model.objects.create_user("a_very_long_username_indeed", password=PASSWORD)
    other = type(client)()
    other.post(reverse("login"), {"username": "a_very_long_username_indeed",
                                  "password": PASSWORD})
    assert "_auth_user_id" in other.session and "nickname" not in other.session


def test_signing_in_on_a_new_phone_brings_the_nickname_back(client, django_user_model):
    """A drill signed up as "Karim" (username karim_drill2, which the nickname
    rules refuse) and, on a fresh phone, was asked its name again."""
    guest(client, "Karim")
    client.post(reverse("signup"), {"username": "karim_drill2", "password1": PASSWORD,
                                    "password2": PASSWORD, "email": ""})
    assert "_auth_user_id" in client.session
    new_phone = type(client)()
    new_phone.post(reverse("login"), {"username": "karim_drill2", "password": PASSWORD})
    assert new_phone.session["nickname"] == "Karim"
    assert "nickname-input" not in new_phone.get(reverse("home")).content.decode()
    # A name chosen while signed in is the one the next phone gets.
    new_phone.post(reverse("nickname"), {"name": "করিম"})
    third_phone = type(client)()
    third_phone.post(reverse("login"), {"username": "karim_drill2", "password": PASSWORD})
    assert third_phone.session["nickname"] == "করিম"
    # A phone that already has a nickname keeps it (a guest chose it before signing in).
    client.post(reverse("logout"))
    guest(client, "Mitu")
    client.post(reverse("login"), {"username": "karim_drill2", "password": PASSWORD})
    assert client.session["nickname"] == "Mitu"
    assert django_user_model.objects.get(username="karim_drill2").first_name == "করিম"
