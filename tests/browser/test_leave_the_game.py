"""A player who has to go leaves the game from "More": the computer takes the
seat at once, and coming back to the room gives it back.

Before, a player who went mid-game left the others waiting out timeouts (15 s
a turn, a computer only after three of them or a timeout after 45 s away).
Rumi taps "Leave the game", is asked once (a stray tap does nothing: "Stay"
puts it back), confirms, and her page goes to the start; Tanvir's page shows
her seat held by the computer; she opens the room again and takes it back.

On a server whose turns do not run out (``play.calm_server``): only the
pages' taps, and the computers' answers to them, move the game.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.play import calm_server, open_more, seat_two_and_start

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

ASK = {
    "bn": "আপনি এই রুমে ফিরে না আসা পর্যন্ত কম্পিউটার আপনার আসনে খেলবে।",
    "en": "The computer will play your seat until you come back to this room.",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("browser-leave-db")) as running:
        yield running


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_leaving_the_game_hands_the_seat_to_the_computer_at_once(players, screenshots, lang):
    rumi, tanvir = players("Rumi", lang), players("Tanvir", "en")
    code = seat_two_and_start(rumi, tanvir, "snakes", 2)
    page = rumi.page
    room_url = page.url

    open_more(page)
    leave = page.get_by_test_id("leave-game")
    expect(leave).to_be_visible()
    # One tap only asks; "Stay" puts the question away and changes nothing.
    leave.click()
    expect(page.locator("#leave-ask")).to_have_text(ASK[lang])
    rumi.shoot(screenshots, "leave-the-game-asked")
    page.get_by_test_id("leave-no").click()
    expect(page.locator("#leave-ask")).to_have_count(0)
    expect(page.get_by_test_id("leave-game")).to_be_focused()
    assert tanvir.page.evaluate("KG.state.snap.room.seats[0].held") is False

    page.get_by_test_id("leave-game").click()
    page.get_by_test_id("leave-yes").click()
    page.wait_for_url(rumi.base_url + "/")
    # The table knows at once: the computer holds her seat (no timeout ran).
    tanvir.page.wait_for_function("() => KG.state.snap.room.seats[0].held === true")
    expect(tanvir.page.locator(".table-seat[data-seat='0'] .conn.held")).to_have_count(1)

    # Back in the room: the seat is hers to take back.
    page.goto(room_url)
    rumi.wait_online()
    reclaim = page.get_by_test_id("reclaim")
    expect(reclaim).to_be_enabled()
    open_more(page)
    expect(page.get_by_test_id("leave-game")).to_have_count(0)  # nothing to leave while held
    page.locator("[data-key=more-close]").click()
    reclaim.click()
    tanvir.page.wait_for_function("() => KG.state.snap.room.seats[0].held === false")
    open_more(page)
    expect(page.get_by_test_id("leave-game")).to_be_visible()
    assert code in room_url
    assert not rumi.errors and not tanvir.errors
