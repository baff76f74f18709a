"""Players in real Chromium against a real daphne.

``server`` and ``browser`` come from tests/fixtures.py: one daphne (on a temporary
SQLite database, because the tables need WebSockets, which Django's live_server
cannot serve) and one Chromium per test process. Computer players act after
KHELAGHOR_BOT_DELAY seconds; the server shortens it so games finish in minutes,
but the tests still wait on DOM state, never on time.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.servers import REPO_ROOT

SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}
LOCALES = {"bn": "bn-BD", "en": "en-GB"}


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {SCREENSHOTS}")
    return SCREENSHOTS


class Player:
    """One browser context: a guest with a nickname and a language."""

    def __init__(self, browser: Browser, base_url: str, name: str, lang: str, viewport: dict,
                 **context_options):
        self.base_url = base_url
        self.name = name
        self.lang = lang
        self.context = browser.new_context(
            viewport=viewport, locale=LOCALES[lang], has_touch=viewport is PHONE,
            **context_options,
        )
        self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("request", lambda request: self.requests.append(request.url))

    def start(self) -> Player:
        """Open the home page and give the nickname the first visit asks for."""
        page = self.page
        page.goto(self.base_url + "/")
        if page.locator("#nickname-input").count():
            page.fill("#nickname-input", self.name)
            page.locator("#nickname button[type=submit]").click()
            expect(page.locator("#create")).to_be_visible()
        return self

    def create_room(self, game: str, seats: int) -> str:
        page = self.page
        page.check(f"input[name=game][value={game}]")
        page.select_option("#seats-select", str(seats))
        page.get_by_test_id("create-room").click()
        # The browser tests of a process share one SQLite server, whose one
        # database thread also plays the computers of earlier tests' tables
        # (at 0.15 s a move): on a slow, loaded machine the new room's write
        # once waited past the page's 20 s (a CI run, 2026-12-01).
        page.wait_for_url(re.compile(r"/r/[A-Z0-9]{4}/$"), timeout=60_000)
        self.wait_online()
        return page.get_by_test_id("room-code").inner_text().strip()

    def join_by_typing(self, code: str) -> None:
        page = self.page
        page.goto(self.base_url + "/#join")
        boxes = page.locator(".code-box")
        expect(boxes).to_have_count(4)
        boxes.first.click()
        page.keyboard.type(code.lower())  # lower case on purpose: the boxes accept it
        page.get_by_test_id("join-room").click()
        page.wait_for_url(re.compile(rf"/r/{code}/$"))
        self.wait_online()
        page.get_by_test_id("join-seat").click()
        expect(page.locator("#room")).not_to_have_attribute("data-you-seat", "")

    def wait_online(self) -> None:
        expect(self.page.locator("#net-status")).to_have_attribute("data-state", "online")

    def shoot(self, screenshots: Path, label: str) -> None:
        """Screenshots of the page as it is now, at phone and desktop sizes.
        Animations are shown at their end (a sheet that rises was caught half
        transparent over the board)."""
        size = self.page.viewport_size
        for view_name, viewport in (("360x640", PHONE), ("1280x800", DESKTOP)):
            self.page.set_viewport_size(viewport)
            self.page.screenshot(
                path=str(screenshots / f"{label}-{self.lang}-{view_name}.png"), full_page=True,
                animations="disabled",
            )
        self.page.set_viewport_size(size)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def players(browser, server):
    made: list[Player] = []

    def make(name: str, lang: str = "bn", viewport: dict = PHONE, **context_options) -> Player:
        player = Player(browser, server.base_url, name, lang, viewport, **context_options)
        made.append(player)
        return player

    yield make
    for player in made:
        assert not player.errors, f"JavaScript errors in {player.name}'s page: {player.errors}"
        ours = (server.base_url, server.ws_url, "data:")
        foreign = [u for u in player.requests if not u.startswith(ours)]
        assert not foreign, f"third-party requests: {foreign}"
        player.close()
