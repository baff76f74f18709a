"""Ratings in a real browser, end to end: a player with an account ticks
"rated" at their private table, plays a whole game against a computer, and
finds themselves on the leaderboard and on their profile with a history chart.
The leaderboard and profile are then read at phone size in both languages.
The results panel says how the game moved the player's rating, on a Bengali
page in Bengali digits, as it arrives and after a reload.

Other accounts' ratings are put into the server's database with manage.py
(as a moderator's tools would see them), so the leaderboard has a ranked part.
"""

from __future__ import annotations

import json
import re
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
TO_BN = str.maketrans("0123456789", BN_DIGITS)
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


class HoldRatings:
    """Routes the page's room sockets to the server and holds the server's
    ``ratings`` messages until ``release``: the page then gets them after the
    game's last update with its results panel open, as it nearly always does
    (the server sends them once the rating thread is done), every time."""

    def __init__(self) -> None:
        self.holding = True
        self.held: list[tuple[object, str]] = []

    def __call__(self, page_side) -> None:
        server_side = page_side.connect_to_server()
        page_side.on_message(server_side.send)
        server_side.on_message(lambda message: self.from_server(page_side, message))

    def from_server(self, page_side, message) -> None:
        kind = json.loads(message).get("type") if isinstance(message, str) else None
        if kind == "ratings" and self.holding:
            self.held.append((page_side, message))
            return
        page_side.send(message)

    def wait_for_one(self, page, budget: float = 60.0) -> dict:
        deadline = time.monotonic() + budget
        while not self.held:
            assert time.monotonic() < deadline, "the server never sent the ratings"
            page.wait_for_timeout(100)  # poll interval: Playwright hands messages over meanwhile
        return json.loads(self.held[0][1])

    def release(self) -> None:
        self.holding = False
        for page_side, message in self.held:
            page_side.send(message)


def bn(number: float) -> str:
    return f"{number:.1f}".translate(TO_BN)


@pytest.mark.timeout(900)
def test_the_results_say_in_bengali_how_the_rated_game_moved_the_players_rating(
    players, screenshots
):
    suffix = uuid.uuid4().hex[:4].translate(str.maketrans("0123456789", "ghijklmnop"))
    host = players("রুমি", "bn", PHONE)
    route = HoldRatings()
    host.page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    host.start()
    sign_up(host, f"rumi{suffix}")
    page = host.page
    page.goto(host.base_url + "/")
    host.create_room("snakes", 2)
    before = page.locator("#room").get_attribute("data-version")
    page.get_by_test_id("rated").check()
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    page.get_by_test_id("fill-bots").click()
    expect(page.get_by_test_id("start")).to_be_enabled()
    page.get_by_test_id("start").click()
    play_to_the_end([page], "snakes")
    expect(page.get_by_test_id("placings").locator("li")).to_have_count(2)
    lines = page.get_by_test_id("rating-change")
    expect(lines).to_have_count(0)  # the rating is updated after the game's end

    told = route.wait_for_one(page)
    (change,) = told["changes"]
    assert (change["seat"], change["before"]) == (0, 25.0), told  # a newcomer
    route.release()
    tenths = round((change["after"] - 25.0) * 10)
    sign = "+" if tenths > 0 else "\u2212" if tenths < 0 else "\u00b1"
    shown = f"আপনার রেটিং ২৫.০ → {bn(change['after'])} ({sign}{bn(abs(tenths) / 10)})"
    expect(lines).to_have_count(1)
    line = page.get_by_test_id("placings").locator("li", has=lines)
    expect(line).to_contain_text("(আপনি)")  # on the player's own place
    expect(line.get_by_test_id("rating-shown")).to_have_text(shown)
    said = f"আপনার রেটিং ২৫.০ থেকে {bn(change['after'])} হয়েছে"
    expect(line.locator(".visually-hidden")).to_have_text(said)
    expect(page.locator("#event-log")).to_contain_text(said)  # said once as it came
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # The sheet has risen (its 0.3 s animation), so the picture shows it and not the board.
    page.wait_for_function("() => document.querySelector('.results.sheet').getAnimations()"
                           ".every(a => a.playState === 'finished')")
    assert page.evaluate(LOW_CONTRAST) == []
    host.shoot(screenshots, "results-rating")

    # A page that loads later has it from its snapshot, and does not say it again.
    page.reload()
    host.wait_online()
    expect(page.get_by_test_id("rating-shown")).to_have_text(shown)
    expect(page.locator("#event-log")).not_to_contain_text(said)

    # The number is the rating the profile shows.
    page.goto(host.base_url + "/accounts/profile/")
    mine = page.get_by_test_id("ratings").locator(".profile-rating[data-game=snakes]")
    expect(mine.locator(".rating-now strong")).to_have_text(bn(change["after"]))
