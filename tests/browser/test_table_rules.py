"""The table never offers what the rules refuse, and keeps the seat through trouble.

- the Liar's Dice picker offers exactly the legal raises (docs/rules.md §1.2);
- a Ludo token that cannot move cannot be chosen, on the board or below it;
- a reload mid-game returns to the same seat; going offline and back reconnects;
- the language switch shows English on the table and back.

The server here gives turns that do not run out during a test
(``play.calm_server``): walking the bid picker or choosing a token reads a
position that no timeout can change under the test's feet.
"""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE
from tests.browser.play import calm_server, status, version

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

FACES = (2, 3, 4, 5, 6, 1)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """This module's own server (it replaces the shared one for these tests)."""
    with calm_server(tmp_path_factory.mktemp("browser-rules-db")) as running:
        yield running


def rank(face: int) -> int:
    return FACES.index(face)


def beats(quantity: int, face: int, current: tuple[int, int] | None) -> bool:
    if current is None:
        return True
    cq, cf = current
    return quantity > cq or (quantity == cq and rank(face) > rank(cf))


def start_game(player, game: str, seats: int) -> None:
    player.start()
    player.create_room(game, seats)
    player.page.get_by_test_id("fill-bots").click()
    player.page.get_by_test_id("start").click()
    expect(player.page.locator("#room")).to_have_attribute("data-view", "table")


def offered_bids(page: Page) -> set[tuple[int, int]]:
    """Every (quantity, face) the picker lets a player compose, by walking the stepper."""
    down = page.get_by_test_id("qty-down")
    while down.is_enabled():
        down.click()
    offered = set()
    up = page.get_by_test_id("qty-up")
    while True:
        quantity = int(page.get_by_test_id("bid-quantity").get_attribute("data-value"))
        for button in page.locator(".face-buttons button:enabled").all():
            offered.add((quantity, int(button.get_attribute("data-face"))))
        if not up.is_enabled():
            return offered
        up.click()
        expect(page.get_by_test_id("bid-quantity")).not_to_have_attribute(
            "data-value", str(quantity)
        )


@pytest.mark.timeout(600)
def test_the_bid_picker_offers_every_legal_raise_and_nothing_else(players):
    rumi = players("Rumi", "bn", PHONE)
    start_game(rumi, "liars_dice", 2)
    page = rumi.page
    checked = 0
    while checked < 3 and status(page) != "finished":
        picker = page.get_by_test_id("bid-picker")
        expect(picker).to_be_visible(timeout=30_000)
        expect(page.get_by_test_id("bid-button")).to_be_enabled()
        total = int(picker.get_attribute("data-total"))
        bid = page.get_by_test_id("current-bid")
        current = None
        if bid.get_attribute("data-quantity"):
            current = (int(bid.get_attribute("data-quantity")), int(bid.get_attribute("data-face")))
        expected = {
            (q, f) for q in range(1, total + 1) for f in FACES if beats(q, f, current)
        }
        assert offered_bids(page) == expected, f"picker disagrees with the rules after {current}"
        # An opening bid cannot be a challenge; later the challenge is offered.
        expect(page.get_by_test_id("challenge-button")).to_have_count(0 if current is None else 1)
        checked += 1
        before = version(page)
        page.get_by_test_id("bid-button").click()  # the smallest legal raise
        expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    assert checked >= 1


@pytest.mark.timeout(600)
def test_a_ludo_token_that_cannot_move_cannot_be_chosen(players):
    rumi = players("Rumi", "bn", PHONE)
    start_game(rumi, "ludo", 2)
    page = rumi.page
    for _ in range(1500):
        assert status(page) != "finished", "the game ended before a partial choice came up"
        movable = page.locator("[data-testid^=token-][data-movable=yes]")
        stuck = page.locator("[data-testid^=token-][data-movable=no]")
        if movable.count() and stuck.count():
            break
        before = version(page)
        # Bring tokens out whenever possible: several tokens on the board make the
        # partial choices (some tokens can move, some cannot) that this test needs.
        action = page.locator(
            "[data-testid^=token-][data-movable=yes][data-where=base]:enabled"
        ).first
        if not action.count():
            action = page.locator(
                "[data-testid=roll-button]:enabled, [data-testid^=token-][data-movable=yes]:enabled"
            ).first
        if action.count():
            action.click()
        page.wait_for_function(
            "v => document.querySelector('#room').dataset.version !== v", arg=before,
            timeout=30_000,
        )
    else:
        pytest.fail("no turn with both a movable and a stuck token came up")

    token = int(stuck.first.get_attribute("data-testid").split("-")[1])
    expect(stuck.first).to_be_disabled()
    seat = page.locator("#room").get_attribute("data-you-seat")
    on_board = page.locator(f".tokens .token[data-seat='{seat}'][data-token='{token}']")
    assert on_board.get_attribute("tabindex") is None
    assert on_board.get_attribute("role") != "button"
    assert on_board.get_attribute("aria-disabled") == "true"
    before = version(page)
    on_board.dispatch_event("click")
    # Nothing was sent: the page is not waiting for an answer and nothing changed.
    assert page.evaluate("KG.state.pending") is False
    assert version(page) == before
    # A movable token is one Tab stop, its button in the bar (the board's token
    # was a second one); on the board it answers a tap.
    assert page.locator(".tokens [tabindex]").count() == 0
    good = int(movable.first.get_attribute("data-testid").split("-")[1])
    expect(page.get_by_test_id(f"token-{good}")).to_be_enabled()
    good_on_board = page.locator(f".tokens .token[data-seat='{seat}'][data-token='{good}']")
    assert good_on_board.get_attribute("tabindex") is None
    good_on_board.dispatch_event("click")
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)


@pytest.mark.timeout(600)
def test_a_reload_returns_to_the_same_seat_and_the_page_reconnects_after_going_offline(players):
    rumi = players("Rumi", "bn", PHONE)
    start_game(rumi, "snakes", 2)
    page = rumi.page
    seat = page.locator("#room").get_attribute("data-you-seat")
    assert seat == "0"
    # Play a little so the reload really is mid-game.
    for _ in range(3):
        roll = page.get_by_test_id("roll-button")
        expect(roll).to_be_enabled(timeout=30_000)
        before = version(page)
        roll.click()
        expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    reached = int(version(page))
    page.reload()
    rumi.wait_online()
    expect(page.locator("#room")).to_have_attribute("data-view", "table")
    expect(page.locator("#room")).to_have_attribute("data-you-seat", seat)
    assert int(version(page)) >= reached

    expect(page.get_by_test_id("roll-button")).to_be_enabled(timeout=30_000)  # Rumi's turn
    rumi.context.set_offline(True)
    expect(page.locator("#net-status")).not_to_have_attribute("data-state", "online")
    expect(page.locator("#net-status")).to_be_visible()
    # Not a plain "your turn" the page cannot act on (a bad-network drill).
    expect(page.get_by_test_id("turn-text")).to_have_text("আপনার পালা, সংযোগ ফিরলে চাল দিন")
    # Actions are disabled while not connected.
    expect(page.locator("[data-testid=roll-button]:enabled")).to_have_count(0)
    rumi.context.set_offline(False)
    rumi.wait_online()
    expect(page.locator("#room")).to_have_attribute("data-you-seat", seat)
    expect(page.locator("#room")).to_have_attribute("data-connected", "yes")


@pytest.mark.timeout(300)
def test_the_language_switch_shows_english_and_back(players):
    rumi = players("Rumi", "bn", PHONE)
    rumi.start()
    rumi.create_room("ludo", 2)
    page = rumi.page
    expect(page.locator("#code-title")).to_have_text("রুম কোড")

    def switch_to(language: str) -> None:
        page.locator(f'.language-switcher button[value="{language}"]').click()
        rumi.wait_online()
        expect(page.locator("html")).to_have_attribute("lang", language)

    switch_to("en")
    expect(page.locator("#code-title")).to_have_text("Room code")
    expect(page.get_by_test_id("start")).to_have_text("Start the game")
    switch_to("bn")
    expect(page.locator("#code-title")).to_have_text("রুম কোড")
