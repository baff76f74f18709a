"""Drive the real UI through a game: tap whatever the rules allow, until the end.

Each step taps one enabled control per player whose turn it is, then waits for
the room's version (shown on #room) to move: progress is read from the DOM,
never assumed after a sleep.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.servers import DaphneServer, free_port, run_daphne, sqlite_env

# Longer than any browser test: at a table on a `calm_server` nobody's turn runs
# out while a test looks, so only what the pages do (and the computers' answers
# to it) moves the game.
CALM_TURN_SECONDS = 1800

# Page scripts for ``page.evaluate``. HIDE(true|false): the page as a phone
# hides it (another app in front, the screen off) and shows it again.
HIDE = """hidden => {
    Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden});
    Object.defineProperty(document, 'visibilityState', {configurable: true,
        get: () => hidden ? 'hidden' : 'visible'});
    document.dispatchEvent(new Event('visibilitychange'));
}"""
# The host's house board whose one ladder climbs from the entry square to 100:
# at Snakes the first 6 wins.
RACE_BOARD = """() => KG.send({type: 'set_options',
                              options: {board: {ladders: {'6': 100}, snakes: {}}}})"""

ACTIONS = {
    "snakes": ["[data-testid=roll-button]:enabled"],
    "ludo": [
        "[data-testid=roll-button]:enabled",
        "[data-testid^=token-][data-movable=yes]:enabled",
    ],
    "liars_dice": [
        "[data-testid=challenge-button]:enabled",
        "[data-testid=bid-button]:enabled",
    ],
}


class SocketRecorder:
    """A page's room socket (``page.route_web_socket``), untouched; every
    message from the server kept, to check what a page shows against what
    the server said rather than against the page's own reading of it."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def __call__(self, page_side) -> None:
        server_side = page_side.connect_to_server()
        page_side.on_message(server_side.send)

        def forward(message) -> None:
            if isinstance(message, str):
                self.messages.append(json.loads(message))
            page_side.send(message)

        server_side.on_message(forward)

    def events(self) -> list[dict]:
        return [event for message in self.messages for event in message.get("events", [])]


def status(page: Page) -> str:
    return page.locator("#room").get_attribute("data-status") or ""


def version(page: Page) -> str:
    return page.locator("#room").get_attribute("data-version") or ""


def choose(page: Page, game: str, rng: random.Random) -> Locator | None:
    found = [page.locator(sel).first for sel in ACTIONS[game]]
    found = [loc for loc in found if loc.count()]
    if not found:
        return None
    if game == "liars_dice" and len(found) == 2:
        # Challenge now and then, bid otherwise, so rounds end and dice are lost.
        return found[0] if rng.random() < 0.35 else found[1]
    if game == "ludo" and len(found) == 2:
        return found[1]
    return rng.choice(found)


def play_to_the_end(
    pages: list[Page],
    game: str,
    *,
    budget: float = 780.0,
    on_step: Callable[[int], None] | None = None,
    seed: int = 7,
) -> int:
    """Tap through the game on every page until each shows the results. Returns steps."""
    rng = random.Random(seed)
    watch = pages[0]
    deadline = time.monotonic() + budget
    steps = 0
    while not all(status(p) == "finished" for p in pages):
        assert time.monotonic() < deadline, f"{game} did not finish within {budget}s"
        before = version(watch)
        for page in pages:
            if status(page) == "finished":
                continue
            button = choose(page, game, rng)
            if button is None:
                continue
            try:
                button.click(timeout=2_000)
            except PlaywrightTimeout:
                pass  # redrawn under our finger: the next step looks again
        steps += 1
        if on_step is not None:
            on_step(steps)
        try:
            watch.wait_for_function(
                "v => document.querySelector('#room').dataset.version !== v",
                arg=before,
                timeout=20_000,
            )
        except PlaywrightTimeout:
            pass  # nobody could act; the turn timer acts for them and the loop goes on
    return steps


@contextlib.contextmanager
def calm_server(directory, **settings: str) -> Iterator[DaphneServer]:
    """A daphne like the browser tests' shared ``server`` (its own SQLite file,
    quick computers), but whose turns never run out during a test: no timeout
    and no computer move can come between what a page did and what the test
    then reads. (Timeouts themselves are tested on the shared server.)"""
    # A copy of this process's migrated template database, not a migrate of its own.
    env = sqlite_env(
        directory,
        KHELAGHOR_BOT_DELAY="0.15",
        KHELAGHOR_TURN_SECONDS=str(CALM_TURN_SECONDS),
        DJANGO_LOG_LEVEL="WARNING",
        **settings,
    )
    with run_daphne(free_port(), env) as running:
        running.database = Path(directory) / "db.sqlite3"
        running.env = env
        yield running


def seat_two(host, guest, game: str = "snakes", seats: int = 3) -> str:
    """Host creates the room and the guest types the code and sits: the lobby."""
    host.start()
    guest.start()
    code = host.create_room(game, seats)
    guest.join_by_typing(code)
    return code


def seat_two_and_start(host, guest, game: str = "snakes", seats: int = 3) -> str:
    """Host creates the room, the guest types the code and sits, computers fill the rest."""
    code = seat_two(host, guest, game, seats)
    if seats > 2:
        host.page.get_by_test_id("fill-bots").click()
    start = host.page.get_by_test_id("start")
    expect(start).to_be_enabled()
    start.click()
    for player in (host, guest):
        expect(player.page.locator("#room")).to_have_attribute("data-view", "table")
    return code


def start_a_race(host, guest) -> None:
    """Host and guest seated at a Snakes lobby: the host sets RACE_BOARD (the
    first 6 wins) and starts; both pages are at the table."""
    before = version(host.page)
    host.page.evaluate(RACE_BOARD)
    expect(host.page.locator("#room")).not_to_have_attribute("data-version", before)
    host.page.get_by_test_id("start").click()
    for player in (host, guest):
        expect(player.page.locator("#room")).to_have_attribute("data-view", "table")


def open_more(page: Page) -> None:
    """Open the table's "More" sheet (reactions, what happened, fair dice, the
    report form) where it is behind a tap: on a phone held upright. On a wide
    screen it is already beside the board."""
    button = page.get_by_test_id("more-button")
    if button.is_visible() and button.get_attribute("aria-expanded") != "true":
        button.click()
        expect(page.get_by_test_id("more-panel")).to_be_visible()
