"""Two browsers play a whole game of each kind through the real UI.

The host (Bengali, phone) creates a room and reads its code off the lobby; the
guest (English, desktop) types the code into the four boxes; the host fills
the remaining seats with computers and starts; both tap until the results.
Screenshots of the lobby, the table mid-game and the results are kept at both
sizes and in both languages.
"""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.play import play_to_the_end

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

GAMES = {
    # game: seats (two humans, the rest computers)
    "liars_dice": 3,
    "ludo": 3,
    "snakes": 3,
}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("game", list(GAMES))
def test_two_players_play_a_whole_game_to_the_results(game, players, screenshots):
    host = players("Rumi", "bn", PHONE).start()
    guest = players("Tanvir", "en", DESKTOP).start()

    code = host.create_room(game, GAMES[game])
    assert len(code) == 4
    # The lobby shows a share link for WhatsApp (a link only) and the seed commitment.
    wa = host.page.locator("a[href^='https://wa.me/?text=']")
    expect(wa).to_have_count(1)
    assert len(host.page.get_by_test_id("seed-hash").inner_text().strip()) == 64

    guest.join_by_typing(code)
    expect(host.page.locator(".seat-row").nth(1)).to_contain_text("Tanvir")
    host.page.get_by_test_id("fill-bots").click()
    start = host.page.get_by_test_id("start")
    expect(start).to_be_enabled()
    host.shoot(screenshots, f"lobby-{game}")
    guest.shoot(screenshots, f"lobby-{game}")
    start.click()

    for player in (host, guest):
        expect(player.page.locator("#room")).to_have_attribute("data-view", "table")
        expect(player.page.get_by_test_id("server-seed-hash")).not_to_have_text("—")

    shot = {"done": False}

    def mid_game(step: int) -> None:
        if step == 12 and not shot["done"]:
            shot["done"] = True
            host.shoot(screenshots, f"table-{game}")
            guest.shoot(screenshots, f"table-{game}")

    play_to_the_end([host.page, guest.page], game, on_step=mid_game)

    for player in (host, guest):
        page = player.page
        placings = page.get_by_test_id("placings").locator("li")
        expect(placings).to_have_count(GAMES[game])
        # The fairness panel now reveals the server seed and links to the checker.
        assert len(page.get_by_test_id("server-seed").inner_text().strip()) == 64
        expect(page.get_by_test_id("verify-link")).to_be_visible()
    expect(host.page.get_by_test_id("rematch")).to_be_enabled()
    expect(guest.page.get_by_test_id("rematch")).to_have_count(0)
    host.shoot(screenshots, f"results-{game}")
    guest.shoot(screenshots, f"results-{game}")
