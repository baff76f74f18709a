"""Ratings in a real browser, end to end: a player with an account ticks
"rated" at their private table, plays a whole game against a computer, and
finds themselves on the leaderboard and on their profile with a history chart.
The leaderboard and profile are then read at phone size in both languages.

Other accounts' ratings are put into the server's database with manage.py
(as a moderator's tools would see them), so the leaderboard has a ranked part.
"""

from __future__ import annotations

import time
import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.browser.play import play_to_the_end
from tests.browser.test_contrast import LOW_CONTRAST
from tests.servers import run_manage

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

PASSWORD = "khela-ghor-2024!"
BN_DIGITS = "০১২৩৪৫৬৭৮৯"
SETTLED = [("asha", 31.26, 2.0, 12), ("babu", 28.04, 2.6, 7), ("chandra", 26.5, 3.1, 5)]


def sign_up(player, username: str) -> None:
    page = player.page
    page.goto(player.base_url + "/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.locator("form.stack-form button[type=submit]").click()
    page.wait_for_url("**/accounts/profile/")


def seed_settled_players(server, suffix: str) -> None:
    rows = [(f"{name}{suffix}", mu, sigma, games) for name, mu, sigma, games in SETTLED]
    code = (
        "from django.contrib.auth import get_user_model\n"
        "from accounts_optional.models import Rating\n"
        f"for name, mu, sigma, games in {rows!r}:\n"
        "    user = get_user_model().objects.create_user(name, password='x-seeded-1')\n"
        "    Rating.objects.create(user=user, game='snakes', mu=mu, sigma=sigma, games=games)\n"
    )
    run_manage("shell", "-c", code, env=server.env)


def wait_for_row(page, url: str, username: str, budget: float = 60.0):
    """Reload the leaderboard until the rating written after the game shows."""
    deadline = time.monotonic() + budget
    while True:
        page.goto(url)
        row = page.locator(f"[data-testid=newcomers] tr[data-name='{username}']")
        if row.count():
            return row
        assert time.monotonic() < deadline, f"{username} never reached {url}"
        page.wait_for_timeout(300)  # poll interval; the row decides


def switch_language(player, lang: str) -> None:
    page = player.page
    page.locator(f'.language-switcher button[value="{lang}"]').click()
    expect(page.locator("html")).to_have_attribute("lang", lang)
    player.lang = lang


@pytest.mark.timeout(900)
def test_a_rated_game_puts_the_player_on_the_leaderboard_and_their_profile(
    players, server, screenshots
):
    suffix = uuid.uuid4().hex[:4].translate(str.maketrans("0123456789", "ghijklmnop"))
    username = f"rumi{suffix}"
    host = players("Rumi", "en", PHONE).start()
    sign_up(host, username)
    host.page.goto(host.base_url + "/")
    host.create_room("snakes", 2)
    page = host.page

    rated = page.get_by_test_id("rated")
    expect(rated).not_to_be_checked()
    before = page.locator("#room").get_attribute("data-version")
    rated.check()
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    page.reload()  # what the server kept, not what the box shows
    host.wait_online()
    expect(page.get_by_test_id("rated")).to_be_checked()
    host.shoot(screenshots, "lobby-rated")

    page.get_by_test_id("fill-bots").click()
    expect(page.get_by_test_id("start")).to_be_enabled()
    page.get_by_test_id("start").click()
    play_to_the_end([page], "snakes")
    placings = page.get_by_test_id("placings").locator("li")
    expect(placings).to_have_count(2)
    won = "Rumi" in placings.first.inner_text()

    seed_settled_players(server, suffix)
    board_url = f"{host.base_url}/leaderboard/snakes-and-ladders/"
    row = wait_for_row(page, board_url, username)
    expect(row).to_have_attribute("data-games", "1")
    rating = float(row.locator(".rating").inner_text().split("±")[0])
    assert (rating > 25) == won, (rating, won)
    ranked = page.get_by_test_id("ranked").locator("tbody tr")
    names = [ranked.nth(i).get_attribute("data-name") for i in range(ranked.count())]
    assert names[:3] == [f"{name}{suffix}" for name, *_ in SETTLED]  # best first
    expect(ranked.first.locator(".rating")).to_contain_text("31.3 ± 4.0")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.evaluate(LOW_CONTRAST) == []
    host.shoot(screenshots, "leaderboard")

    page.goto(host.base_url + "/accounts/profile/")
    mine = page.get_by_test_id("ratings").locator(".profile-rating[data-game=snakes]")
    expect(mine).to_have_attribute("data-games", "1")
    expect(mine.locator("svg.rating-chart polyline.rating-line")).to_have_count(1)
    points = mine.locator("polyline.rating-line").get_attribute("points").split()
    assert len(points) == 2  # the start, and after this game
    assert page.evaluate(LOW_CONTRAST) == []
    host.shoot(screenshots, "profile-ratings")

    # The same pages in Bengali: Bengali digits, Bengali words.
    switch_language(host, "bn")
    page.goto(board_url)
    expect(page.locator("h1")).to_contain_text("লিডারবোর্ড")
    first = page.get_by_test_id("ranked").locator("tbody tr").first
    expect(first.locator(".rank")).to_have_text("১")
    expect(first.locator(".rating")).to_contain_text("৩১.৩ ± ৪.০")
    table_text = page.get_by_test_id("ranked").locator("tbody").inner_text()
    assert not any(ch.isascii() and ch.isdigit() for ch in table_text), table_text
    assert any(ch in BN_DIGITS for ch in table_text)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.evaluate(LOW_CONTRAST) == []
    host.shoot(screenshots, "leaderboard")
    page.goto(host.base_url + "/accounts/profile/")
    expect(page.get_by_test_id("ratings")).to_contain_text("রেটিংয়ের খেলা ১টি")
    host.shoot(screenshots, "profile-ratings")

    # The host's choice in a Bengali lobby.
    page.goto(host.base_url + "/")
    host.create_room("ludo", 2)
    choice = page.locator("label.choice", has=page.get_by_test_id("rated"))
    expect(choice).to_contain_text("রেটিংয়ের খেলা")
    expect(page.get_by_test_id("rated")).not_to_be_checked()
    host.shoot(screenshots, "lobby-rated")
