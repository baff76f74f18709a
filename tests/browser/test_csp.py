"""Every page keeps a strict Content-Security-Policy in real Chromium.

The policy (settings.CONTENT_SECURITY_POLICY) allows nothing inline and nothing
from other hosts. The test walks the pages a player and a moderator see (home,
rules, verifier, accounts, the three tables in the lobby and in play, a finished
game's page, the not-found and too-many-tries pages, the admin) and fails on any
violation Chromium reports: the page's ``securitypolicyviolation`` events and
the console's "Content Security Policy" messages. A last step breaks the policy
on purpose, to show the watch would have caught it.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from rooms import guessing
from rooms.codes import ALPHABET
from tests.browser.conftest import PHONE
from tests.browser.play import open_more
from tests.servers import run_manage

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__cspViolations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline")
                              + " at " + e.documentURI);
});
"""
STAFF = ("csp-moderator", "a-long-test-password-77")


@pytest.fixture(scope="module")
def finished_game(server) -> tuple[int, int]:
    """A finished Ludo game in the server's database: its id and its room's id."""
    out = run_manage("shell", "-c", (
        "from tests.history.factories import record_for, stored_game; "
        "g = stored_game(record_for('ludo')); print(g.id, g.room_id)"
    ), env=server.env)
    game_id, room_id = out.strip().splitlines()[-1].split()
    return int(game_id), int(room_id)


@pytest.fixture(scope="module")
def staff(server):
    try:
        run_manage("createsuperuser", "--noinput", "--username", STAFF[0],
                   "--email", "csp@example.org",
                   env={**server.env, "DJANGO_SUPERUSER_PASSWORD": STAFF[1]})
    except RuntimeError as exc:
        if "already taken" not in str(exc):
            raise
    return STAFF


class Watched:
    """A player's page with the violation watch installed before any script runs."""

    def __init__(self, player) -> None:
        self.player = player
        self.page = player.page
        self.console: list[str] = []
        self.violations: list[str] = []
        self.visited: list[str] = []
        player.context.add_init_script(WATCH)
        self.page.on("console", self._console)

    def _console(self, message) -> None:
        if "Content Security Policy" in message.text:
            self.console.append(message.text)

    def collect(self) -> None:
        """Read the current document's violations (before it is navigated away)."""
        self.violations += self.page.evaluate("window.__cspViolations || []")

    def visit(self, path: str, status: int = 200) -> None:
        self.collect()
        response = self.page.goto(self.player.base_url + path)
        assert response is not None and response.status == status, (path, response)
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, path
        self.page.wait_for_load_state("load")
        self.visited.append(path)

    def clean(self) -> bool:
        self.collect()
        return not self.violations and not self.console


def start_table(player, game: str, seats: int) -> str:
    code = player.create_room(game, seats)
    player.page.get_by_test_id("fill-bots").click()
    player.page.get_by_test_id("start").click()
    expect(player.page.locator("#room")).to_have_attribute("data-view", "table")
    return code


@pytest.mark.timeout(600)
def test_no_page_breaks_the_content_security_policy(players, server, finished_game, staff):
    game_id, room_id = finished_game
    rumi = players("Rumi", "bn", PHONE)
    watched = Watched(rumi)

    watched.visit("/")  # the first visit: only the nickname form
    rumi.start()
    for path in ("/", "/rules/liars-dice/", "/rules/ludo/", "/rules/snakes-and-ladders/",
                 "/verify/", "/accounts/login/", "/accounts/signup/", "/accounts/profile/",
                 f"/games/{game_id}/"):
        watched.visit(path)
    expect(rumi.page.locator("#replay, [data-url]").first).to_be_attached()
    watched.visit("/r/PADA/", status=404)

    for game, seats in (("liars_dice", 2), ("ludo", 2), ("snakes", 2)):
        watched.visit("/")
        watched.visited.append(f"table {game}")
        start_table(rumi, game, seats)
        roll = rumi.page.get_by_test_id("roll-button")
        if roll.count() and roll.is_enabled():
            before = rumi.page.locator("#room").get_attribute("data-version")
            roll.click()  # a roll draws dice and moves a token: animations, styles
            expect(rumi.page.locator("#room")).not_to_have_attribute("data-version", before)
        open_more(rumi.page)
        rumi.page.get_by_test_id("report-button").click()
        expect(rumi.page.locator(".report-form")).to_be_visible()
        rumi.page.keyboard.press("Escape")

    # The too-many-tries page: this session spends the rest of its guesses (the
    # not-found page above was the first) on codes never issued.
    for n in range(guessing.SESSION_MISSES - 1):
        missed = rumi.context.request.get(f"{server.base_url}/api/rooms/GUD{ALPHABET[n]}/")
        assert missed.status == 404
    watched.visit("/r/BUMA/", status=429)
    expect(rumi.page.get_by_test_id("retry-after")).to_contain_text("মিনিট")

    staff_page = players("Moderator", "en", PHONE)
    staff_watch = Watched(staff_page)
    staff_watch.visit("/admin/login/")
    staff_page.page.fill("#id_username", staff[0])
    staff_page.page.fill("#id_password", staff[1])
    staff_page.page.locator("input[type=submit]").click()
    expect(staff_page.page.locator("#user-tools")).to_be_visible()
    for path in ("/admin/", "/admin/rooms/room/", f"/admin/rooms/room/{room_id}/change/",
                 f"/admin/rooms/room/{room_id}/moderate/close/", "/admin/rooms/game/",
                 f"/admin/rooms/game/{game_id}/change/", "/admin/rooms/report/",
                 "/admin/rooms/moderationlog/", "/staff/dashboard/"):
        staff_watch.visit(path)

    assert watched.clean(), json.dumps(watched.violations + watched.console, indent=1)
    assert staff_watch.clean(), json.dumps(staff_watch.violations + staff_watch.console,
                                           indent=1)
    assert len(watched.visited) + len(staff_watch.visited) >= 20

    # The watch works: a style attribute set from script is refused and reported.
    rumi.page.evaluate("document.body.setAttribute('style', 'outline: 1px solid red')")
    rumi.page.wait_for_function("() => window.__cspViolations.length > 0")
    watched.collect()
    assert any("style-src" in v for v in watched.violations), watched.violations
