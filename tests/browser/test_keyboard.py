"""A player who uses the keyboard or a screen reader, in a real browser.

A drill played every game by keyboard only, reading the accessibility tree and
the live regions, found that:

- after every move the focus fell to the page's body, and stayed there;
- "Your turn" was never said (the turn bar is not a live region), so a blind
  player learnt it from the computers' moves, with the clock running;
- the lobby's "Add computer" became "Remove" under the focus, which was lost;
- while the page could not reconnect, its status line said the seconds to the
  next try twice a second.

Every table here is on a server whose turns do not run out during a test
(``play.calm_server``).
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.browser.play import calm_server, seat_two, seat_two_and_start, version

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

YOUR_TURN = {"bn": "আপনার পালা", "en": "Your turn"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("browser-keyboard-db")) as running:
        yield running


def said(page) -> list[str]:
    """Every sentence the page has said (its event log keeps them all)."""
    return page.locator("#event-log li").all_inner_texts()


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_the_turn_is_said_and_the_focus_waits_on_the_move_to_make(players, lang):
    host = players("Rumi", lang, PHONE)
    guest = players("Tanvir", lang, PHONE)
    seat_two(host, guest, "snakes", 2)
    start = host.page.get_by_test_id("start")
    expect(start).to_be_enabled()
    start.focus()
    host.page.keyboard.press("Enter")

    pages = {0: host.page, 1: guest.page}
    # Seat 0 opens: its page says so, and the focus is on Roll, not the body.
    expect(host.page.get_by_test_id("turn-text")).to_have_text(YOUR_TURN[lang])
    for _ in range(4):
        mover = next(seat for seat, page in pages.items()
                     if page.locator("[data-testid=turn-text]").inner_text() == YOUR_TURN[lang]
                     and page.get_by_test_id("roll-button").is_enabled())
        page = pages[mover]
        roll = page.get_by_test_id("roll-button")
        expect(roll).to_be_focused()
        assert said(page)[-1] == YOUR_TURN[lang]
        square = page.evaluate(f"KG.state.snap.game.view.squares[{mover}]")
        before = version(page)
        page.keyboard.press("Enter")
        for other in pages.values():
            expect(other.locator("#room")).not_to_have_attribute("data-version", before)
            other.wait_for_function("v => KG.state.version > v", arg=int(before))
        # A roll that leaves the player at the start says why nothing moved.
        rolled = page.evaluate("KG.state.lastEvents.filter(e => e.type === 'roll')[0].value")
        rolled_line = next(s for s in reversed(said(page)) if s.startswith("Rumi" if mover == 0
                                                                           else "Tanvir"))
        needs_six = "শুরু করতে ৬ লাগবে" if lang == "bn" else "a 6 is needed to start"
        assert (needs_six in rolled_line) == (square == 0 and rolled != 6), rolled_line
        # Whoever moves next (the same player after a 6) holds the focus on Roll.
        nxt = next(p for p in pages.values()
                   if p.locator("[data-testid=turn-text]").inner_text() == YOUR_TURN[lang])
        expect(nxt.get_by_test_id("roll-button")).to_be_focused()
    for page in pages.values():
        told = [s for s in said(page) if s.startswith(YOUR_TURN[lang])]
        assert told, "each player was told their turn"
    assert not host.errors and not guest.errors


@pytest.mark.timeout(180)
def test_adding_and_removing_a_computer_by_keyboard_keeps_the_focus_on_that_seat(players):
    host = players("Rumi", "en", PHONE)
    host.start()
    host.create_room("ludo", 3)
    page = host.page
    add = page.locator("[data-key=bot-2]")
    expect(add).to_have_attribute("aria-label", "Add a computer in seat 3")  # which of the rows
    add.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".seat-row[data-seat='2'] .tag")).to_have_count(1)  # a computer sits
    remove = page.locator("[data-key=rm-2]")
    expect(remove).to_be_focused()
    expect(remove).to_have_attribute("aria-label", re.compile(r"^Remove \S"))  # by name
    page.keyboard.press("Enter")
    expect(page.locator(".seat-row[data-seat='2'] .tag")).to_have_count(0)
    expect(page.locator("[data-key=bot-2]")).to_be_focused()
    assert not host.errors


class DropAfterFirst:
    """The page's first socket passes through; once ``drop`` is called it is
    closed, and every try to reconnect is closed at once until ``allow``."""

    def __init__(self) -> None:
        self.sockets = 0
        self.first = None
        self.refusing = False

    def __call__(self, page_side) -> None:
        self.sockets += 1
        if self.refusing:
            page_side.close(code=1011)
            return
        server_side = page_side.connect_to_server()
        page_side.on_message(server_side.send)
        server_side.on_message(page_side.send)
        self.first = page_side

    def drop(self) -> None:
        self.refusing = True
        self.first.close(code=1011)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_a_lost_connection_is_said_once_while_the_countdown_only_shows(players, lang):
    rumi = players("Rumi", lang, PHONE)
    route = DropAfterFirst()
    rumi.page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    rumi.start()
    rumi.create_room("snakes", 2)
    rumi.wait_online()
    page = rumi.page
    # Count what a screen reader would hear: changes inside the live region
    # that are not hidden from it.
    page.evaluate("""() => {
      window.heard = [];
      const box = document.getElementById("net-status");
      new MutationObserver(() => {
        const text = [...box.childNodes]
          .filter(n => !(n.nodeType === 1 && n.getAttribute("aria-hidden") === "true"))
          .map(n => n.textContent).join("");
        if (window.heard[window.heard.length - 1] !== text) window.heard.push(text);
      }).observe(box, {subtree: true, childList: true, characterData: true});
    }""")
    route.drop()
    shown = page.locator("#net-status .net-shown")
    expect(shown).to_have_text(re.compile(r"\d|[০-৯]"))  # the seconds to the next try show
    page.wait_for_function("() => KG.state.attempt >= 4", timeout=30_000)
    assert route.sockets >= 4, "each try reached the socket and was closed"
    heard = page.evaluate("window.heard")
    lost = "সংযোগ কেটে গেছে" if lang == "bn" else "Connection lost"
    assert len(heard) == 1 and heard[0].startswith(lost), heard


class FreezeAtSeatsTurn:
    """Passes the server's messages to the page until one gives the turn to
    ``seat``; that one arrives, and nothing after it: the page stays on that
    turn, whatever the computer playing it does next."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.frozen = False

    def __call__(self, page_side) -> None:
        server_side = page_side.connect_to_server()
        page_side.on_message(server_side.send)
        server_side.on_message(lambda message: self.from_server(page_side, message))

    def from_server(self, page_side, message) -> None:
        if self.frozen:
            return
        data = json.loads(message) if isinstance(message, str) else {}
        turn = ((data.get("game") or {}).get("turn") or {})
        page_side.send(message)
        if data.get("type") == "update" and turn.get("seat") == self.seat:
            self.frozen = True


@pytest.mark.timeout(180)
def test_while_a_computer_holds_a_seat_its_turn_is_not_called_the_players(players, screenshots):
    """A drill on a bad network: under the banner "the computer is holding your
    seat" the page said "Your turn", and the other player's said "Tanvir is
    thinking…", as if Tanvir were there."""
    rumi = players("Rumi", "en", PHONE)
    tanvir = players("Tanvir", "en", PHONE)
    routes = {}
    for player in (rumi, tanvir):
        routes[player.name] = FreezeAtSeatsTurn(1)
        player.page.route_web_socket(re.compile(r"/ws/rooms/"), routes[player.name])
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    tanvir.page.evaluate("KG.send({type: 'leave'})")  # a computer holds seat 1
    expect(tanvir.page.get_by_test_id("reclaim")).to_be_visible()
    while not routes["Rumi"].frozen:  # seat 0 rolls until the turn is seat 1's
        roll = rumi.page.get_by_test_id("roll-button")
        expect(roll).to_be_enabled()
        before = version(rumi.page)
        roll.click()
        expect(rumi.page.locator("#room")).not_to_have_attribute("data-version", before)
    expect(rumi.page.get_by_test_id("turn-text")).to_have_text(
        "The computer is playing for Tanvir")
    expect(tanvir.page.get_by_test_id("turn-text")).to_have_text(
        "The computer is playing your turn")
    # The others see a computer's square on the seat, not an away seat's dot;
    # the player's own page says "your seat", the other's names it.
    expect(rumi.page.locator(".table-seat[data-seat='1'] .conn")).to_have_class(
        re.compile(r"\bheld\b"))
    expect(tanvir.page.locator("#event-log")).to_contain_text("The computer is holding your seat")
    expect(rumi.page.locator("#event-log")).to_contain_text("The computer is holding Tanvir's seat")
    rumi.shoot(screenshots, "table-a-seat-held-by-the-computer")
    assert not rumi.errors and not tanvir.errors
