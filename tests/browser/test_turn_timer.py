"""The turn timer, seen in a real browser on the shared server's real clock
(15 s a turn): when nobody acts, the timer acts and every page says so."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.play import seat_two_and_start

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


@pytest.mark.timeout(120)
def test_a_timeout_is_said_in_words(players, screenshots):
    rumi = players("Rumi", "bn", PHONE)
    tanvir = players("Tanvir", "en", DESKTOP)
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    for page in (rumi.page, tanvir.page):  # sound on: the last seconds tick too
        page.get_by_test_id("sound-toggle").click()
        expect(page.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "true")
    # Nobody rolls: the turn timer acts for whoever's turn it is, and both pages
    # say so in their event logs, which keep every sentence (a later timeout
    # cannot push this one out of sight within the test). A player's own page
    # says "your", the other's names them; the last seconds are said first.
    seat = rumi.page.evaluate("KG.state.snap.game.turn.seat")
    rumi_hears = "আপনার সময় শেষ" if seat == 0 else "Tanvir-এর সময় শেষ"
    tanvir_hears = "Your time is up" if seat == 1 else "Time up for Rumi"
    expect(rumi.page.locator("#event-log")).to_contain_text(rumi_hears, timeout=40_000)
    expect(tanvir.page.locator("#event-log")).to_contain_text(tanvir_hears)
    waiting = (rumi.page, "bn") if seat == 0 else (tanvir.page, "en")
    last_seconds = re.compile(r"আর [০-৯] সেকেন্ড" if waiting[1] == "bn" else r"\d seconds? left")
    expect(waiting[0].locator("#event-log")).to_contain_text(last_seconds)
    assert "hurry" in waiting[0].evaluate("KG.feel.played")
    # The turn bar says it too, before whose turn it is, while the turn is
    # another's (after a 6 the roll was the timer's, and the turn still hers).
    page, lang = waiting
    note = "আপনার সময় ফুরিয়েছিল · " if lang == "bn" else "Your time ran out · "
    turn_bar = page.get_by_test_id("turn-text")
    if page.evaluate("KG.state.snap.game.turn.seat") != seat:
        expect(turn_bar).to_contain_text(note)
        (rumi if page is rumi.page else tanvir).shoot(screenshots, "turn-bar-time-ran-out")
    else:
        expect(turn_bar).not_to_contain_text(note)


class HoldTheMoveUntilTheTimeout:
    """The page's first move is held on its way (a slow uplink) until the
    server's update that says its turn timed out, then sent on."""

    def __init__(self) -> None:
        self.held = None
        self.released = False

    def __call__(self, page_side) -> None:
        server_side = page_side.connect_to_server()
        page_side.on_message(lambda message: self.from_page(server_side, message))
        server_side.on_message(lambda message: self.from_server(page_side, server_side, message))

    def from_page(self, server_side, message) -> None:
        kind = json.loads(message).get("type") if isinstance(message, str) else None
        if kind == "action" and self.held is None and not self.released:
            self.held = message
            return
        server_side.send(message)

    def from_server(self, page_side, server_side, message) -> None:
        page_side.send(message)
        data = json.loads(message) if isinstance(message, str) else {}
        timed_out = any(event.get("type") == "timeout" for event in data.get("events", []))
        if timed_out and self.held is not None and not self.released:
            self.released = True
            server_side.send(self.held)


def roll_through(route, players):
    """Rumi (seat 0, who opens) and Tanvir at Snakes, Rumi's socket through
    ``route``; Rumi taps Roll. Returns Rumi."""
    rumi = players("Rumi", "en", PHONE)
    tanvir = players("Tanvir", "en", PHONE)
    rumi.page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    assert rumi.page.evaluate("KG.state.snap.game.turn.seat") == 0  # seat 0 opens
    rumi.page.get_by_test_id("roll-button").click()
    return rumi


@pytest.mark.timeout(120)
def test_a_move_that_reaches_the_table_after_its_time_ran_out_is_said_to_be_too_late(players):
    """A drill on an 800 ms link: a tap in the last moment reached the table
    after the timeout, and the page said only "the table has moved on"."""
    route = HoldTheMoveUntilTheTimeout()
    rumi = roll_through(route, players)
    alert = rumi.page.locator("#room-error")
    expect(alert).to_contain_text("Too late", timeout=40_000)
    assert route.released
    expect(rumi.page.locator("#event-log")).to_contain_text("Your time is up")
    expect(rumi.page.locator("#event-log")).to_contain_text("Too late")
    assert not rumi.errors


class SnapshotOvertakesTheTimeout(HoldTheMoveUntilTheTimeout):
    """As above, and the update with the timeout is held too, until the
    snapshot that answers the stale move has reached the page: the reply sent
    straight to the socket overtaking the room's update, as the drill saw."""

    def __init__(self) -> None:
        super().__init__()
        self.overtaken = None

    def from_server(self, page_side, server_side, message) -> None:
        data = json.loads(message) if isinstance(message, str) else {}
        timed_out = any(event.get("type") == "timeout" for event in data.get("events", []))
        if timed_out and self.held is not None and not self.released:
            self.released, self.overtaken = True, message
            server_side.send(self.held)
            return
        page_side.send(message)
        if data.get("type") == "snapshot" and self.overtaken is not None:
            page_side.send(self.overtaken)
            self.overtaken = None


@pytest.mark.timeout(120)
def test_an_update_overtaken_by_a_snapshot_is_still_told(players):
    """The drill's late move: the page's log then lacked the timeout and the
    computer's move made for the player, which the overtaken update carried."""
    route = SnapshotOvertakesTheTimeout()
    rumi = roll_through(route, players)
    log = rumi.page.locator("#event-log")
    expect(log).to_contain_text("Your time is up", timeout=40_000)
    assert route.released and route.overtaken is None  # the order was as described
    expect(log).to_contain_text("Rumi rolled")  # the timer's roll for Rumi
    # Said once: the update's events, not again when anything later arrives.
    assert log.inner_text().count("Your time is up") == 1
    assert not rumi.errors


@pytest.mark.timeout(120)
def test_an_offline_page_says_when_its_turn_ran_out(players):
    """The drill's phone, 50 s into a drop, still said "Your turn" with the
    ring at 0: the timer had acted for it long before."""
    rumi = players("Rumi", "bn", PHONE)
    tanvir = players("Tanvir", "en", PHONE)
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    assert rumi.page.evaluate("KG.state.snap.game.turn.seat") == 0  # seat 0 opens
    rumi.context.set_offline(True)
    words = rumi.page.get_by_test_id("turn-text")
    expect(words).to_have_text("আপনার পালা, সংযোগ ফিরলে চাল দিন")
    expect(words).to_have_text("সংযোগ না থাকায় সময় শেষ হয়ে গেছে; খেলা এগিয়ে গেছে", timeout=40_000)
    expect(tanvir.page.locator("#event-log")).to_contain_text("Time up for Rumi")
    rumi.context.set_offline(False)
    rumi.wait_online()
    expect(words).not_to_have_text(re.compile("সংযোগ"))


@pytest.mark.timeout(120)
def test_an_offline_page_does_not_name_a_turn_whose_clock_ran_out(players):
    """The phone drill: offline, the ring ran to 0 and the bar still said
    whose turn it was, long after the timer had acted for them."""
    rumi = players("Rumi", "en", PHONE)
    tanvir = players("Tanvir", "bn", PHONE)
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    assert tanvir.page.evaluate("KG.state.snap.game.turn.seat") == 0  # Rumi's turn
    tanvir.context.set_offline(True)
    words = tanvir.page.get_by_test_id("turn-text")
    expect(words).to_have_text("Rumi-এর পালা")
    expect(words).to_have_text("খেলা এগিয়ে গেছে; সংযোগ ফিরলে আবার দেখা যাবে", timeout=40_000)
    expect(rumi.page.locator("#event-log")).to_contain_text("Your time is up")
    tanvir.context.set_offline(False)
    tanvir.wait_online()
    expect(words).not_to_have_text(re.compile("সংযোগ"))
    assert not tanvir.errors
