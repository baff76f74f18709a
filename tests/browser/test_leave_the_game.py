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

from tests.browser.play import (
    calm_server,
    open_more,
    seat_two,
    seat_two_and_start,
    start_a_race,
    version,
)

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

HELD = {"bn": "কম্পিউটার আপনার হয়ে খেলছে", "en": "The computer is playing for you"}
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
    for answer in ("leave-yes", "leave-no"):  # both whole on the screen, under the thumb
        expect(page.get_by_test_id(answer)).to_be_in_viewport(ratio=1)
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

    # The start page shows the way back, and says who plays her seat.
    back = page.get_by_test_id(f"your-table-{code}")
    expect(back).to_contain_text(HELD[lang])
    rumi.shoot(screenshots, "home-your-tables")
    back.click()
    page.wait_for_url(room_url)
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
    assert not rumi.errors and not tanvir.errors


@pytest.mark.timeout(180)
def test_when_the_host_left_the_game_a_friend_takes_their_place_and_plays_again(
        players, screenshots):
    """Only the host starts a rematch: a host who left mid-game left the
    others on the results with "The host can start a rematch" and nobody to
    start it. Now one of them becomes the host there and plays again."""
    rumi, tanvir = players("Rumi", "bn"), players("Tanvir", "bn")
    seat_two(rumi, tanvir, "snakes", 2)
    start_a_race(rumi, tanvir)  # the first 6 wins
    open_more(rumi.page)
    rumi.page.get_by_test_id("leave-game").click()
    rumi.page.get_by_test_id("leave-yes").click()
    rumi.page.wait_for_url(rumi.base_url + "/")
    page = tanvir.page
    page.wait_for_function("() => KG.state.snap.room.seats[0].held === true")
    roll = page.locator("[data-testid=roll-button]:enabled")
    results = page.locator("[data-testid=results]:not([hidden])")
    # Tanvir rolls; the computer plays Rumi's seat; until someone rolls a 6.
    while True:
        expect(roll.or_(results)).to_be_visible()
        if results.is_visible():
            break
        before = version(page)
        roll.click()
        expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    expect(results).to_be_visible()
    page.wait_for_function("() => KG.state.snap.room.seats[0].connected === false")
    expect(results.get_by_test_id("host-away")).to_be_visible()
    tanvir.shoot(screenshots, "results-host-away")
    results.get_by_test_id("take-host").click()
    rematch = results.get_by_test_id("rematch")
    expect(rematch).to_be_enabled()  # Tanvir is the host now
    assert page.evaluate("KG.state.snap.you.is_host") is True
    rematch.click()
    expect(page.locator("#room")).to_have_attribute("data-status", "playing")
    assert page.evaluate("KG.state.snap.game.number") == 2
    assert not tanvir.errors
