"""Ludo: the player who taps Roll sees what they rolled, also when the turn
passes at once (no token could move, or the one move it allowed was made
for them), and the other players see it too.

Two players on phones, no computers, on a server whose turns do not run out
(``play.calm_server``): Rumi opens, taps Roll (and Roll again after a 6, or a
token when the rolls leave a choice) until the turn passes to Tanvir. What
both pages then say is checked against the roll events Tanvir's socket
received, not against the page's own reading of them.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.browser.play import SocketRecorder, calm_server, seat_two_and_start, version

pytestmark = [pytest.mark.browser, pytest.mark.integration]

BENGALI_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
SAID = {  # (no move, moved, three 6s)
    ("bn", "you"): ("আপনি ফেললেন {n}: কোনো গুটি চালানো গেল না", "আপনি ফেললেন {n}",
                    "আপনি পরপর তিনটি ৬ ফেললেন: পালা বাতিল"),
    ("en", "Rumi"): ("Rumi rolled {n}: no token could move", "Rumi rolled {n}",
                     "Rumi rolled three 6s: the turn is void"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("browser-ludo-rolls-db")) as running:
        yield running


@pytest.mark.timeout(180)
def test_a_roll_that_ends_the_turn_at_once_is_shown_to_everyone(players, screenshots):
    rumi = players("Rumi", "bn", PHONE)
    tanvir = players("Tanvir", "en", PHONE)
    seen_by_tanvir = SocketRecorder()
    tanvir.page.route_web_socket(re.compile(r"/ws/rooms/"), seen_by_tanvir)
    seat_two_and_start(rumi, tanvir, "ludo", 2)
    page = rumi.page
    assert page.evaluate("KG.state.snap.game.view.to_move") == 0  # Rumi opens
    for _ in range(6):  # a sequence is at most three rolls and the moves between
        if page.evaluate("KG.state.snap.game.view.to_move") != 0:
            break
        before = version(page)
        roll = page.get_by_test_id("roll-button")
        if roll.count() and roll.is_enabled():
            roll.click()
        else:
            page.locator("[data-testid^=token-][data-movable=yes]:enabled").first.click()
        expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    expect(tanvir.page.locator("#room")).to_have_attribute("data-version", version(page))
    assert page.evaluate("KG.state.snap.game.view.to_move") == 1

    events = seen_by_tanvir.events()
    rolls = [e["value"] for e in events if e["type"] == "roll" and e["seat"] == 0]
    moved = any(e["type"] == "move" and e["seat"] == 0 for e in events)
    which = 2 if rolls == [6, 6, 6] else 1 if moved else 0
    for player, key in ((rumi, ("bn", "you")), (tanvir, ("en", "Rumi"))):
        n = ", ".join(str(r) for r in rolls)
        if player.lang == "bn":
            n = n.translate(BENGALI_DIGITS)
        expect(player.page.get_by_test_id("ended-sequence")).to_have_text(SAID[key][which].format(n=n))
    rumi.shoot(screenshots, "ludo-ended-sequence")
    tanvir.shoot(screenshots, "ludo-ended-sequence")
    # Tanvir rolls: Rumi's sequence gives way to his.
    before = version(tanvir.page)
    tanvir.page.get_by_test_id("roll-button").click()
    expect(tanvir.page.locator("#room")).not_to_have_attribute("data-version", before)
    tanvir_rolls = [e for e in seen_by_tanvir.events() if e["type"] == "roll" and e["seat"] == 1]
    assert tanvir_rolls
    if tanvir.page.evaluate("KG.state.snap.game.view.to_move") == 1:  # his turn goes on
        expect(tanvir.page.get_by_test_id("ended-sequence")).to_have_count(0)
