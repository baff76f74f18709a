"""Two browsers play a game of each kind through the real UI, to the results.

The host (Bengali, phone) creates a room and reads its code off the lobby; the
guest (English, desktop) types the code into the four boxes; the host fills
the remaining seats with computers and starts; both tap until the results.
Screenshots of the lobby, the table mid-game and the results are kept at both
sizes and in both languages.

Snakes and Liar's Dice are played whole. A Ludo game is hundreds of taps whose
point is the game, not the page, so after the start its moves up to a late
position are played server-side (tests/browser/seed.py) and the pages reload and
tap the rest: rolls, tokens to choose, the end. Whole Ludo games are played over
real WebSockets on both boards in tests/integration/test_play.py.
"""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.play import calm_server, play_to_the_end
from tests.browser.seed import play_server_side

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

GAMES = {
    # game: seats (two humans, the rest computers)
    "liars_dice": 3,
    "ludo": 3,
    "snakes": 3,
}
# Games whose moves up to a late position are played server-side (see above).
SEEDED = {"ludo"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """This module's own server (it replaces the shared one): no turn runs out, so
    only the pages, the computers answering them and the seeding script move a
    game, never a timer between the script and the pages."""
    with calm_server(tmp_path_factory.mktemp("browser-games-db")) as running:
        yield running


@pytest.mark.timeout(900)
@pytest.mark.parametrize("game", list(GAMES))
def test_two_players_play_a_whole_game_to_the_results(game, players, server, screenshots):
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
    if game in SEEDED:
        seeded = play_server_side(server, code)
        assert seeded["moves"] > 0
        for player in (host, guest):
            player.page.reload()  # a snapshot of the late position, as after a reconnect
            player.wait_online()
            expect(player.page.locator("#room")).to_have_attribute("data-view", "table")
            player.page.wait_for_function(
                "v => Number(document.querySelector('#room').dataset.version) >= v",
                arg=seeded["version"])
        shot["done"] = True
        host.shoot(screenshots, f"table-{game}")
        guest.shoot(screenshots, f"table-{game}")

    def mid_game(step: int) -> None:
        if step == 12 and not shot["done"]:
            shot["done"] = True
            host.shoot(screenshots, f"table-{game}")
            guest.shoot(screenshots, f"table-{game}")

    steps = play_to_the_end([host.page, guest.page], game, on_step=mid_game)
    seeded_moves = seeded["moves"] if game in SEEDED else 0
    print(f"\n{game}: {seeded_moves} moves played server-side, {steps} steps in the browser")

    for player in (host, guest):
        page = player.page
        placings = page.get_by_test_id("placings").locator("li")
        expect(placings).to_have_count(GAMES[game])
        # The fairness panel now reveals the server seed and links to the checker.
        assert len(page.get_by_test_id("server-seed").inner_text().strip()) == 64
        expect(page.get_by_test_id("verify-link")).to_be_visible()
    expect(host.page.get_by_test_id("rematch")).to_be_enabled()
    expect(guest.page.get_by_test_id("rematch")).to_have_count(0)
    # The results rise where the phone player is looking: the winner in big,
    # Rematch and Share inside the screen, and the focus on them.
    expect(host.page.locator("#results-title")).to_be_focused()
    # A retrying assertion: a late redraw (the luck report arriving) rebuilds the
    # sheet's contents, and a one-shot measurement could fall between two frames.
    for testid in ("winner", "rematch", "share-result"):
        expect(host.page.get_by_test_id(testid)).to_be_in_viewport(ratio=1)
    # Share: the phone's share sheet where there is one, else the link is copied.
    guest.page.get_by_test_id("share-result").click()
    if not guest.page.evaluate("() => !!navigator.share"):
        expect(guest.page.get_by_test_id("share-status")).not_to_be_empty()

    # The end is said in words: who won, and the places.
    expect(host.page.locator("#event-log")).to_contain_text("জিতেছেন")
    expect(guest.page.locator("#event-log")).to_contain_text("The game is over.")
    expect(guest.page.locator("#event-log")).to_contain_text("wins. Places: 1st")

    record = host.page.request.get(
        host.base_url + host.page.evaluate("KG.state.snap.game.record_url")
    ).json()
    expected = dice_by_seat(record)
    for player in (host, guest):
        check_luck_report(player, game, expected)
        check_fairness_links(player)
    host.shoot(screenshots, f"results-{game}")
    guest.shoot(screenshots, f"results-{game}")
    if game == "liars_dice":
        # Under the results, the board: the one who lost their last die was
        # told to "watch the rest of the game" after it was over.
        loser = next(p for p in (host, guest) if p.page.evaluate(
            "KG.state.snap.game.view.dice_counts[KG.state.snap.you.seat]") == 0)
        loser.page.get_by_test_id("results-close").click()
        expect(loser.page.get_by_test_id("my-dice")).to_have_text("")
        check_replay_is_nobodys_view(guest)


BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def dice_by_seat(record: dict) -> dict[int, tuple[int, int]]:
    """(dice, sixes) per seat, read from the record itself: the rolls made
    (Ludo, Snakes) or the dice held in every round (Liar's Dice)."""
    faces: dict[int, list[int]] = {s["seat"]: [] for s in record["seats"]}
    for event in record["events"]:
        if event["type"] == "roll" and isinstance(event.get("value"), int):
            faces[event["seat"]].append(event["value"])
        elif event["type"] == "round" and isinstance(event.get("dice"), dict):
            for seat, dice in event["dice"].items():
                faces[int(seat)].extend(dice)
    return {seat: (len(f), f.count(6)) for seat, f in faces.items()}


def check_luck_report(player, game: str, expected: dict[int, tuple[int, int]]) -> None:
    """The results screen draws each player's dice against fair dice, with the
    numbers written out in the page's own digits."""
    page = player.page
    luck = page.get_by_test_id("luck")
    expect(luck).to_have_attribute("data-kind", "held" if game == "liars_dice" else "rolled")
    seats = luck.locator(".luck-seat")
    expect(seats).to_have_count(len(expected))
    for seat, (dice, sixes) in expected.items():
        figure = luck.locator(f".luck-seat[data-seat='{seat}']")
        expect(figure).to_have_attribute("data-dice", str(dice))
        expect(figure).to_have_attribute("data-sixes", str(sixes))
        assert figure.locator("svg.luck-chart rect.bar").count() == 6
        text = figure.locator(".luck-text").inner_text()
        shown = str(sixes) if player.lang == "en" else str(sixes).translate(BN_DIGITS)
        assert shown in text, (text, sixes)
        if player.lang == "bn":
            assert not any(ch.isascii() and ch.isdigit() for ch in text), text
        # Screen readers get the six counts in words too.
        assert figure.locator(".visually-hidden").text_content().strip()
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def check_fairness_links(player) -> None:
    """"Verify" opens the game's own page (fairness check, replay); a second link
    opens /verify/ for any record. Both answer 200."""
    page = player.page
    game_url = page.evaluate("KG.state.snap.game.page_url")
    assert game_url and game_url.startswith("/games/")
    verify = page.get_by_test_id("verify-link")
    expect(verify).to_have_attribute("href", game_url)
    expect(page.get_by_test_id("verify-any-link")).to_have_attribute("href", "/verify/")
    for href in (game_url, "/verify/"):
        assert page.request.get(player.base_url + href).status == 200, href


def check_replay_is_nobodys_view(player) -> None:
    """The game page's replay uses the live table's renderer, without its
    "You are watching" header."""
    page = player.context.new_page()
    try:
        page.goto(player.base_url + player.page.evaluate("KG.state.snap.game.page_url"))
        replay = page.locator("#replay")
        expect(replay).to_have_attribute("data-at", "0")
        page.locator("#replay [data-go=last]").click()
        expect(replay.locator("[data-replay-board] .cup")).to_have_count(1)
        expect(replay.locator("[data-replay-board]")).not_to_contain_text("You are watching")
        expect(replay.locator("[data-replay-board]")).not_to_contain_text("আপনি দেখছেন")
        expect(replay.locator("#cup-title")).to_have_count(0)
    finally:
        page.close()
