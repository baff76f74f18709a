"""A player comes back to a seat the computer held: the table says what it did.

Rumi's connection goes dead (her page hears nothing more) just as she leaves
her seat mid-game, so a computer holds it and plays her turns against Tanvir.
Her page then reconnects: the snapshot shows the held banner with the turns
played so far; she takes the seat back, and her page says, once, how many
turns the computer played for her, in Bengali digits on a Bengali page. The
number is checked against the rolls made for her seat that Tanvir's page saw
(at Snakes each is one decision), not against the server's own count.

On a server whose turns do not run out (``play.calm_server``): the computer
plays Rumi's turns only after Tanvir's rolls, and nothing moves while the
test reads.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.browser.play import (
    SocketRecorder,
    calm_server,
    open_more,
    seat_two,
    seat_two_and_start,
    start_a_race,
    version,
)

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

BENGALI_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
TURNS_FOR_RUMI = 3  # the computer's turns in her seat before she comes back, at least

HELD_SO_FAR = {
    "bn": "কম্পিউটার আপনার আসন ধরে রেখেছে, আপনার হয়ে {n}টি চাল দিয়েছে।",
    "en": "The computer is holding your seat and has played {n} turns for you.",
}
WHILE_AWAY = {
    "bn": "আপনার অনুপস্থিতিতে কম্পিউটার আপনার হয়ে {n}টি চাল দিয়েছে।",
    "en": "While you were away the computer played {n} turns for you.",
}
FINISHED_FOR_YOU = {  # (one turn, several)
    "bn": ("আপনার অনুপস্থিতিতে কম্পিউটার আপনার হয়ে {n}টি চাল দিয়ে খেলাটি শেষ করেছে।",) * 2,
    "en": ("While you were away the computer played {n} turn for you and finished the game.",
           "While you were away the computer played {n} turns for you and finished the game."),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("browser-while-away-db")) as running:
        yield running


class DeadLinkThenBack:
    """Rumi's room sockets: the first one, once ``dead``, no longer brings the
    page anything (what she sends still reaches the table), until ``drop``
    closes it as a lost connection does; the page's next socket is a good one."""

    def __init__(self) -> None:
        self.sockets = []
        self.dead = False

    def __call__(self, page_side) -> None:
        server_side = page_side.connect_to_server()
        first = not self.sockets
        self.sockets.append((page_side, server_side))
        page_side.on_message(server_side.send)

        def from_server(message) -> None:
            if not (first and self.dead):
                page_side.send(message)

        server_side.on_message(from_server)

    def drop(self) -> None:
        page_side, server_side = self.sockets[0]
        server_side.close()
        page_side.close(code=4000, reason="the link is gone")  # any code but 4004 (gone)


class Recorder(SocketRecorder):
    """Tanvir's room socket, untouched; every message from the server kept."""

    def rolls_for_seat_0_while_held(self) -> int:
        """Seat 0's rolls from its takeover on (until it is taken back)."""
        rolls, held = 0, False
        for message in self.messages:
            for event in message.get("events", []):
                if event == {"type": "takeover", "seat": 0}:
                    held = True
                elif event == {"type": "reclaim", "seat": 0}:
                    held = False
                elif held and event.get("type") == "roll" and event.get("seat") == 0:
                    rolls += 1
        return rolls


def said(page) -> list[str]:
    """Every sentence the page has said (its event log keeps them all)."""
    return page.locator("#event-log li").all_text_contents()


def in_view(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["x"] >= 0 and (
        box["y"] + box["height"] <= size["height"] + 0.5
        and box["x"] + box["width"] <= size["width"] + 0.5)


def rumi_and_tanvir(players, lang: str):
    """Rumi (in ``lang``) behind a link that will die, Tanvir behind one that
    keeps what the server sent him; both on phones."""
    rumi = players("Rumi", lang, PHONE)
    tanvir = players("Tanvir", "en", PHONE)
    link, seen_by_tanvir = DeadLinkThenBack(), Recorder()
    rumi.page.route_web_socket(re.compile(r"/ws/rooms/"), link)
    tanvir.page.route_web_socket(re.compile(r"/ws/rooms/"), seen_by_tanvir)
    return rumi, tanvir, link, seen_by_tanvir


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_coming_back_the_player_hears_how_many_turns_the_computer_played(
        players, screenshots, lang):
    rumi, tanvir, link, seen_by_tanvir = rumi_and_tanvir(players, lang)
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    assert rumi.page.evaluate("KG.state.snap.game.turn.seat") == 0  # Rumi opens

    # Her link dies as she leaves the seat: her page never hears of the takeover.
    link.dead = True
    rumi.page.evaluate("KG.send({type: 'leave'})")
    roll = tanvir.page.get_by_test_id("roll-button")
    # The computer plays her turns; Tanvir plays his (the table waits for him).
    while True:
        expect(roll).to_be_enabled()
        if seen_by_tanvir.rolls_for_seat_0_while_held() >= TURNS_FOR_RUMI:
            break
        before = version(tanvir.page)
        roll.click()
        expect(tanvir.page.locator("#room")).not_to_have_attribute("data-version", before)
    expect(rumi.page.get_by_test_id("reclaim")).to_be_hidden()  # her page saw nothing
    played = seen_by_tanvir.rolls_for_seat_0_while_held()
    # The page that watched was told the count on the held seat, update by update.
    assert tanvir.page.evaluate("KG.state.snap.room.seats[0].held_moves") == played

    # The connection comes back: the snapshot shows the seat held, and how
    # many turns the computer has played in it.
    link.drop()
    reclaim = rumi.page.get_by_test_id("reclaim")
    expect(reclaim).to_be_enabled()  # the banner: the new socket's snapshot has come
    assert len(link.sockets) == 2
    n = str(played).translate(BENGALI_DIGITS) if lang == "bn" else str(played)
    expect(rumi.page.get_by_test_id("held-text")).to_have_text(HELD_SO_FAR[lang].format(n=n))
    # The banner keeps the table on one phone screen.
    page = rumi.page
    page.evaluate("() => window.scrollTo(0, 0)")
    for shown in ("[data-testid=held-text]", "[data-testid=reclaim]",
                  "[data-testid=snakes-board]", "[data-testid=timer]"):
        assert in_view(page, shown), shown
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    board = page.get_by_test_id("snakes-board").bounding_box()
    assert min(board["width"], board["height"]) >= 250, board
    rumi.shoot(screenshots, "held-seat-turns-so-far")
    assert not any(WHILE_AWAY[lang].format(n=n) in line for line in said(page))

    # She takes it back: the page says it once, in the log and the live region.
    reclaim.click()
    expect(page.get_by_test_id("reclaim")).to_be_hidden()
    sentence = WHILE_AWAY[lang].format(n=n)
    expect(page.locator("#live")).to_contain_text(sentence)
    assert said(page).count(sentence) == 1
    open_more(page)  # where a phone shows "What happened"
    page.locator("details:has(#event-log) > summary").click()
    expect(page.locator("#event-log")).to_contain_text(sentence)
    rumi.shoot(screenshots, "held-seat-taken-back")
    page.locator("[data-key=more-close]").click()
    # The watching page: the seat is Rumi's again, and the count is gone with the hold.
    tanvir.page.wait_for_function("() => KG.state.snap.room.seats[0].held === false")
    assert tanvir.page.evaluate("'held_moves' in KG.state.snap.room.seats[0]") is False
    # Nothing said again on the next update (Tanvir's roll) or a later snapshot.
    before = version(page)
    roll.click()
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    page.reload()
    rumi.wait_online()
    expect(page.locator("#room")).to_have_attribute("data-view", "table")
    assert sentence not in said(page)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_a_game_that_ends_while_the_computer_holds_the_seat_says_so_on_the_results(
        players, screenshots, lang):
    """Rumi's link dies as she leaves, and the game ends before it comes back
    (on a race board the first 6 wins, hers or Tanvir's): her page comes back
    to the results, which say the computer finished the game for her and how
    many turns it played, where the banner that offered the seat back was."""
    rumi, tanvir, link, seen_by_tanvir = rumi_and_tanvir(players, lang)
    seat_two(rumi, tanvir, "snakes", 2)
    start_a_race(rumi, tanvir)
    assert rumi.page.evaluate("KG.state.snap.game.turn.seat") == 0  # Rumi opens

    link.dead = True
    rumi.page.evaluate("KG.send({type: 'leave'})")
    room = tanvir.page.locator("#room")
    roll = tanvir.page.get_by_test_id("roll-button")
    for _ in range(300):  # each round's two rolls miss a 6 with chance 25/36
        # Tanvir's turn (the computer has rolled for Rumi), or the game is over.
        tanvir.page.wait_for_function("""() => KG.state.snap.room.status === 'finished'
            || !!document.querySelector('[data-testid=roll-button]:enabled')""")
        if room.get_attribute("data-status") == "finished":
            break
        before = version(tanvir.page)
        roll.click()
        expect(room).not_to_have_attribute("data-version", before)
    else:
        pytest.fail("nobody rolled a 6")
    played = seen_by_tanvir.rolls_for_seat_0_while_held()
    assert played >= 1  # she left at her turn: the computer rolled for her at once
    seat = tanvir.page.evaluate("KG.state.snap.room.seats[0]")
    assert (seat["held"], seat["held_moves"]) == (True, played)

    link.drop()
    page = rumi.page
    told = page.get_by_test_id("finished-for-you")
    expect(told).to_be_visible()  # the new socket's snapshot: the results
    n = str(played).translate(BENGALI_DIGITS) if lang == "bn" else str(played)
    expect(told).to_have_text(FINISHED_FOR_YOU[lang][played > 1].format(n=n))
    assert len(link.sockets) == 2
    expect(page.get_by_test_id("placings").locator("li")).to_have_count(2)
    expect(page.get_by_test_id("reclaim")).to_be_hidden()
    rumi.shoot(screenshots, "finished-while-held")
    # Tanvir's results say nothing of it: it was not his seat.
    expect(tanvir.page.get_by_test_id("placings").locator("li")).to_have_count(2)
    expect(tanvir.page.get_by_test_id("finished-for-you")).to_have_count(0)
