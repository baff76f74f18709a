"""A phone that slept: its socket may have died meanwhile (a carrier's NAT
forgets an idle connection) without the browser knowing. Coming back, the
page asks the server at once instead of at its next 25-second ping, and a
link that does not answer is replaced by a fresh socket and snapshot.

A real page behind a real server, its room socket routed through Playwright:
the first socket, once ``dead``, carries nothing either way (as a connection
a NAT forgot), and every message the page sends on it is still counted."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.conftest import PHONE
from tests.browser.play import HIDE

pytestmark = [pytest.mark.browser, pytest.mark.integration]

class ForgottenLink:
    """The page's room sockets; the first goes silent both ways once ``dead``."""

    def __init__(self) -> None:
        self.sockets = 0
        self.dead = False
        self.pings_while_dead = 0

    def __call__(self, page_side) -> None:
        self.sockets += 1
        first = self.sockets == 1
        server_side = page_side.connect_to_server()

        def from_page(message) -> None:
            if first and self.dead:
                if isinstance(message, str) and json.loads(message).get("type") == "ping":
                    self.pings_while_dead += 1
                return
            server_side.send(message)

        def from_server(message) -> None:
            if not (first and self.dead):
                page_side.send(message)

        page_side.on_message(from_page)
        server_side.on_message(from_server)


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_a_page_back_from_a_long_sleep_checks_its_socket_and_replaces_a_dead_one(
        players, lang):
    rumi = players("Rumi", lang, PHONE)
    link = ForgottenLink()
    rumi.page.route_web_socket(re.compile(r"/ws/rooms/"), link)
    rumi.start()
    rumi.create_room("snakes", 2)
    page = rumi.page
    assert link.sockets == 1

    page.evaluate("() => { window.firstSocket = KG.state.ws; }")

    # Hidden, then the connection dies; a short look away asks nothing.
    page.evaluate(HIDE, True)
    link.dead = True
    page.evaluate(HIDE, False)
    page.evaluate(HIDE, True)
    # The page was hidden for a minute (its clock of when it was hidden, moved back).
    page.evaluate("() => { KG.state.hiddenAt = Date.now() - 60000; }")
    assert link.pings_while_dead == 0  # the 25-second ping is 20 s off or more
    page.evaluate(HIDE, False)

    # It asks at once, hears nothing within 8 s, and comes back on a new
    # socket: well before its next scheduled ping (25 s after the first
    # socket opened) would even have been sent.
    page.wait_for_function(
        "() => KG.state.connected && KG.state.ws && KG.state.ws !== window.firstSocket",
        timeout=12_000)
    assert link.pings_while_dead == 1
    rumi.wait_online()
    assert link.sockets == 2
    assert page.evaluate("KG.state.snap.you.seat") == 0  # the same seat, a fresh snapshot
