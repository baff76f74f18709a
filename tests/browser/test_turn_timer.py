"""The turn timer, seen in a real browser on the shared server's real clock
(15 s a turn): when nobody acts, the timer acts and every page says so."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.play import seat_two_and_start

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


@pytest.mark.timeout(120)
def test_a_timeout_is_said_in_words(players):
    rumi = players("Rumi", "bn", PHONE)
    tanvir = players("Tanvir", "en", DESKTOP)
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    # Nobody rolls: the turn timer acts for whoever's turn it is, and both pages
    # say so in their event logs, which keep every sentence (a later timeout
    # cannot push this one out of sight within the test).
    seat = rumi.page.evaluate("KG.state.snap.game.turn.seat")
    name = ("Rumi", "Tanvir")[seat]
    expect(rumi.page.locator("#event-log")).to_contain_text(f"{name}-এর সময় শেষ", timeout=40_000)
    expect(tanvir.page.locator("#event-log")).to_contain_text(f"Time up for {name}")
