"""A friend arrives at a quick-play table by its code.

A quick-play table starts by itself (10 s on a real site): a phone drill's
friend typed the code, found the seat buttons under the code and the seats,
off the first screen, and the game began while they looked. The seat is now in
the quick-play box at the top. This server's quick play waits half an hour,
so the test never races the automatic start.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.browser.play import CALM_TURN_SECONDS, calm_server

pytestmark = [pytest.mark.browser, pytest.mark.integration]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("quick-friend-db"),
                     KHELAGHOR_QUICK_PLAY_WAIT=str(CALM_TURN_SECONDS)) as running:
        yield running


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_a_friend_with_the_code_takes_a_seat_from_the_first_screen(players, screenshots, lang):
    rumi = players("Rumi", lang, PHONE).start()
    rumi.page.get_by_test_id("play-snakes").click()
    rumi.page.wait_for_url(re.compile(r"/r/[A-Z]{4}/$"))
    rumi.wait_online()
    code = rumi.page.url.rstrip("/").rsplit("/", 1)[-1]

    mina = players("Mina", lang, PHONE).start()
    mina.page.goto(f"{mina.base_url}/r/{code}/")
    mina.wait_online()
    seat = mina.page.get_by_test_id("quick-seat")
    expect(seat).to_be_in_viewport(ratio=1)
    mina.shoot(screenshots, "quick-play-friend-arrives")
    # The first free seat (the other language's test may have filled some:
    # quick play puts both at one table of this module's server).
    free = mina.page.evaluate("KG.state.snap.room.seats.find(s => s.kind === 'open').seat")
    seat.click()
    expect(mina.page.locator("#room")).to_have_attribute("data-you-seat", str(free))
    # Seated, the same box now offers to start at once, and the button is gone.
    expect(mina.page.get_by_test_id("play-now")).to_be_in_viewport(ratio=1)
    expect(mina.page.get_by_test_id("quick-seat")).to_have_count(0)
    expect(rumi.page.locator(".seat-list")).to_contain_text("Mina")
