"""Past capacity two server processes can publish one table's updates out of
order (docs/performance.md). A real page behind a real server, its socket
routed through Playwright so that one update is handed over after the next:
the page waits for the missing one and applies both in order, instead of
reconnecting for a snapshot."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.integration]


class SwapNextTwoUpdates:
    """Routes the page's room sockets to the server, counting them; once armed,
    holds the next update from the server and hands it over after the one
    that follows it."""

    def __init__(self) -> None:
        self.sockets = 0
        self.armed = False
        self.held: str | None = None
        self.swapped: list[int] = []

    def __call__(self, page_side) -> None:
        self.sockets += 1
        server_side = page_side.connect_to_server()
        page_side.on_message(server_side.send)
        server_side.on_message(lambda message: self.from_server(page_side, message))

    def from_server(self, page_side, message) -> None:
        kind = json.loads(message).get("type") if isinstance(message, str) else None
        if kind == "update" and self.armed:
            if self.held is None:
                self.held = message
                return
            page_side.send(message)
            page_side.send(self.held)
            self.swapped = [json.loads(message)["version"], json.loads(self.held)["version"]]
            self.armed, self.held = False, None
            return
        page_side.send(message)


def test_an_update_that_comes_before_the_one_it_follows_waits_for_it(players):
    rumi = players("Rumi", "bn")
    tanvir = players("Tanvir", "en")
    route = SwapNextTwoUpdates()
    rumi.page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    rumi.start()
    tanvir.start()
    code = rumi.create_room("snakes", 2)
    tanvir.join_by_typing(code)
    before = tanvir.page.evaluate("KG.state.version")
    rumi.page.wait_for_function("v => KG.state.version === v", arg=before)  # up to date

    # Tanvir leaves his seat and takes it again: two updates, one after the other.
    route.armed = True
    tanvir.page.locator("[data-key=leave]").click()
    expect(tanvir.page.locator("#room")).to_have_attribute("data-you-seat", "")
    tanvir.page.get_by_test_id("join-seat").click()
    expect(tanvir.page.locator("#room")).not_to_have_attribute("data-you-seat", "")
    latest = tanvir.page.evaluate("KG.state.version")
    rumi.page.wait_for_function("v => KG.state.version >= v", arg=latest)

    assert route.swapped == [before + 2, before + 1]  # the page got them out of order
    assert route.sockets == 1  # and applied both without reconnecting
    assert rumi.page.evaluate("KG.state.version") == latest == before + 2
    expect(rumi.page.locator("#net-status")).to_have_attribute("data-state", "online")


class HoldTheFirstTimedPong:
    """Routes the page's room socket to the server, holding the answer to the
    page's first timed ping (a slow link) until the test lets it go."""

    def __init__(self) -> None:
        self.held: str | None = None
        self.page_side = None
        self.released = False

    def __call__(self, page_side) -> None:
        self.page_side = page_side
        server_side = page_side.connect_to_server()
        page_side.on_message(server_side.send)
        server_side.on_message(self.from_server)

    def from_server(self, message) -> None:
        data = json.loads(message) if isinstance(message, str) else {}
        if data.get("type") == "pong" and str(data.get("id", "")).startswith("lag") \
                and not self.released and self.held is None:
            self.held = message
            return
        self.page_side.send(message)

    def release(self) -> None:
        self.released = True
        self.page_side.send(self.held)


def test_the_countdowns_end_a_round_trip_early_on_a_slow_link(players):
    """A drill on an 800 ms link: the ring said a second was left, the tap went,
    and it reached the table after the timeout. The page times its pings and
    counts every countdown down that much sooner."""
    rumi = players("Rumi", "en")
    route = HoldTheFirstTimedPong()
    rumi.page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    rumi.start()
    rumi.create_room("snakes", 2)
    page = rumi.page
    # The snapshot's timed ping is out; its pong waits on the slow link 1.5 s.
    page.wait_for_function("() => KG.state.pingSent !== null")
    page.wait_for_function("() => performance.now() - KG.state.pingSent.at >= 1500")
    assert route.held is not None, "the server answered the timed ping"
    route.release()
    page.wait_for_function("() => KG.state.pingSent === null")
    lag = page.evaluate("KG.state.lag")
    assert 1.5 <= lag <= 3, lag
    # Every countdown (the ring, its label, the warning, the shared phone's
    # cover) reads secondsUntil: a deadline 100 s off on the server's clock
    # is that much less the round trip.
    left = page.evaluate(
        "() => KG.room.secondsUntil(Date.now() / 1000 + KG.state.offset + 100)")
    assert abs((100 - left) - lag) < 0.05, (left, lag)
