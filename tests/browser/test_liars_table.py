"""Liar's Dice around a table, on a 360x640 phone, in Bengali and English.

- six players sit around the cup (you at the bottom, the others clockwise: left,
  top, right), each with their dice count; the table fits a 360x300-ish board;
- the bid picker (stepper, six faces, Bid, Challenge) is under 200 px tall and fits
  the viewport; at 200 % text nothing spills sideways;
- the picker offers only legal raises: an illegal one cannot be composed, by
  pointer or keyboard, and a bid composed on it reaches the server (its move log)
  and the other player's table;
- a challenge is a moment on the table: every hand shows, the dice that counted
  glow (their number is the count of the bid's face and wild 1s), the loser is
  marked; with reduced motion nothing animates;
- numbers are in Bengali digits on the Bengali page, and Latin on the English one.

200 % text is emulated the way a phone's "font size" setting works: the browser's
default font size goes from 16 px to 32 px (CDP ``Page.setFontSizes``), so every
rem/em size on the page doubles (checked on the root's computed font size).

The server's turns never run out during a test (``play.calm_server``), so only what
the pages do moves the game; the opening player is seat 0, the host.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE
from tests.browser.play import calm_server, seat_two, seat_two_and_start, version

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

SHOTS = Path("/tmp/shots-liars")
FACES = (2, 3, 4, 5, 6, 1)
LATIN = re.compile(r"[0-9]")
BENGALI = re.compile(r"[০-৯]")
BN = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """This module's own server: no turn runs out while a test reads the page."""
    with calm_server(tmp_path_factory.mktemp("browser-liars-db")) as running:
        yield running


def shoot(page: Page, label: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{label}.png"), full_page=True)


def box(locator) -> dict:
    found = locator.bounding_box()
    assert found is not None, "not laid out"
    return found


def text_size(page: Page, percent: int) -> None:
    """The phone's text size setting: the default font size, scaled."""
    cdp = page.context.new_cdp_session(page)
    standard, fixed = 16 * percent // 100, 13 * percent // 100
    cdp.send("Page.setFontSizes", {"fontSizes": {"standard": standard, "fixed": fixed}})
    expect(page.locator("html")).to_have_css("font-size", f"{standard}px")


SPILLS = """() => {
  const W = document.documentElement.clientWidth;
  const clipped = n => {
    for (let p = n.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  };
  return [...document.querySelectorAll('#room *')].filter(n => {
    const r = n.getBoundingClientRect();
    return r.width > 1 && (r.right > W + 0.5 || r.left < -0.5) && !clipped(n);
  }).map(n => n.outerHTML.slice(0, 120));
}"""


def assert_no_sideways_scroll(page: Page, *, whole_page: bool = True) -> None:
    """Nothing on the table sticks out of the screen. With `whole_page`, the
    document itself is no wider than the screen either (at 200 % text the site
    header's language form, outside the table, is 387 px wide: another change's)."""
    if whole_page:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    # (Read in one go: the table redraws itself when a reveal's moment ends.)
    parts = page.evaluate(
        "() => [...document.querySelectorAll('.ld-table, .ld-picker')]"
        ".map(n => { const r = n.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    assert parts, "no table on the page"
    for left, right in parts:
        assert left >= 0 and right <= PHONE["width"] + 0.5, (left, right)
    spills = page.evaluate(SPILLS)
    assert not spills, spills


def assert_picker_fits(page: Page, max_height: float) -> None:
    picker = page.get_by_test_id("bid-picker")
    picker.scroll_into_view_if_needed()
    b = box(picker)
    assert b["height"] <= max_height, f"the picker is {b['height']} px tall"
    assert b["y"] >= -1 and b["y"] + b["height"] <= PHONE["height"] + 1, b
    for control in picker.locator("button").all():
        c = box(control)
        assert c["height"] >= 44 and c["width"] >= 24, control.evaluate("n => n.outerHTML")
        assert c["y"] >= -1 and c["y"] + c["height"] <= PHONE["height"] + 1, c


def shown_text(page: Page) -> str:
    """What the table and the picker say, including what only screen readers hear."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.board-col, .controls-col')]"
        ".map(n => n.textContent + ' ' + [...n.querySelectorAll('[aria-label]')]"
        ".map(x => x.getAttribute('aria-label')).join(' ')).join(' ')"
    )


def assert_digits_of(page: Page, lang: str) -> None:
    text = shown_text(page)
    if lang == "bn":
        assert BENGALI.search(text), text
        assert not LATIN.search(text), f"Latin digits on the Bengali page: {text}"
    else:
        assert LATIN.search(text), text
        assert not BENGALI.search(text), f"Bengali digits on the English page: {text}"


def start_six(player) -> None:
    player.start()
    player.create_room("liars_dice", 6)
    player.page.get_by_test_id("fill-bots").click()
    start = player.page.get_by_test_id("start")
    expect(start).to_be_enabled()
    start.click()
    expect(player.page.locator("#room")).to_have_attribute("data-view", "table")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_six_players_sit_around_the_cup_and_the_picker_fits_a_phone(players, lang):
    player = players("Rumi" if lang == "bn" else "Tanvir", lang, PHONE)
    start_six(player)
    page = player.page
    # Seat 0 opens the first round: the picker is ours at once.
    expect(page.get_by_test_id("bid-button")).to_be_enabled(timeout=30_000)
    table = page.get_by_test_id("liars-table")
    expect(table.locator(".ld-seat")).to_have_count(6)
    expect(page.get_by_test_id("my-dice").locator(".die")).to_have_count(5)
    expect(table.locator(".ld-seat.is-turn")).to_have_attribute("data-seat", "0")
    expect(table.locator(".ld-seat[aria-current=true]")).to_have_count(1)
    for seat in range(6):
        count = table.locator(f"[data-seat='{seat}'] .ld-count")
        expect(count).to_have_attribute("data-count", "5")
        expect(count).to_contain_text("৫" if lang == "bn" else "5")

    table.scroll_into_view_if_needed()
    t = box(table)
    assert t["width"] <= PHONE["width"] and t["height"] <= 330, t
    cup = box(table.locator(".cup"))
    spots = {seat: box(table.locator(f".ld-seat[data-seat='{seat}']")) for seat in range(6)}
    # You at the bottom, then clockwise: left, top-left, top, top-right, right.
    assert spots[0]["y"] >= cup["y"] + cup["height"] - 1
    assert spots[1]["x"] + spots[1]["width"] <= cup["x"] + 1
    for seat in (2, 3, 4):
        assert spots[seat]["y"] + spots[seat]["height"] <= cup["y"] + 1, seat
    assert spots[2]["x"] < spots[3]["x"] < spots[4]["x"]
    assert spots[5]["x"] >= cup["x"] + cup["width"] - 1
    assert spots[1]["y"] < cup["y"] + cup["height"] and spots[5]["y"] < cup["y"] + cup["height"]

    assert_picker_fits(page, 200)
    assert_no_sideways_scroll(page)
    assert_digits_of(page, lang)
    shoot(page, f"table6-{lang}-360x640")

    # 200 % text: taller, never wider; every control still reachable and thumb-sized.
    text_size(page, 200)
    assert_no_sideways_scroll(page, whole_page=False)
    assert_picker_fits(page, PHONE["height"])
    # (A full-page screenshot resizes the view and drops the CDP font sizes: take
    # the screen as the player sees it, at the table and at the picker.)
    SHOTS.mkdir(parents=True, exist_ok=True)
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"table6-{lang}-360x640-text200-table.png"))
    page.get_by_test_id("bid-picker").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"table6-{lang}-360x640-text200-picker.png"))
    text_size(page, 100)


def query(server, sql: str, *params):
    with sqlite3.connect(server.database, timeout=20) as db:
        return db.execute(sql, params).fetchall()


def bid_events(server, code: str) -> list[dict]:
    rows = query(
        server,
        "SELECT m.event FROM rooms_movelog m JOIN rooms_game g ON g.id = m.game_id"
        " JOIN rooms_room r ON r.id = g.room_id WHERE r.code = ? ORDER BY m.seq",
        code,
    )
    return [e for e in (json.loads(row[0]) for row in rows) if e.get("type") == "bid"]


def compose(page: Page, quantity: int, face: int) -> None:
    """Walk the stepper to `quantity` and press `face`, as a thumb would."""
    while int(page.get_by_test_id("bid-quantity").get_attribute("data-value")) < quantity:
        before = page.get_by_test_id("bid-quantity").get_attribute("data-value")
        page.get_by_test_id("qty-up").click()
        expect(page.get_by_test_id("bid-quantity")).not_to_have_attribute("data-value", before)
    button = page.locator(f".face-buttons button[data-face='{face}']")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")


@pytest.mark.timeout(300)
def test_only_legal_raises_a_bid_reaches_the_server_and_the_reveal_counts_the_dice(players, server):
    rumi = players("Rumi", "bn", PHONE, reduced_motion="no-preference")
    tanvir = players("Tanvir", "en", PHONE, reduced_motion="reduce")
    code = seat_two_and_start(rumi, tanvir, "liars_dice", 2)
    host, guest = rumi.page, tanvir.page

    # Rumi opens: three 4s, composed on the picker.
    expect(host.get_by_test_id("bid-button")).to_be_enabled(timeout=30_000)
    expect(host.get_by_test_id("challenge-button")).to_have_count(0)  # nothing to challenge yet
    compose(host, 3, 4)
    expect(host.locator("#live")).to_have_text("৩টি ৪")
    host.get_by_test_id("bid-button").click()
    # It reached the server (the move log) and Tanvir's table.
    expect(guest.get_by_test_id("current-bid")).to_have_attribute("data-quantity", "3")
    expect(guest.get_by_test_id("current-bid")).to_have_attribute("data-face", "4")
    assert bid_events(server, code)[-1] == {"type": "bid", "seat": 0, "quantity": 3, "face": 4}
    # A screen reader reads the bid once, in words (the "3 ×" and the die are for the eye).
    read = guest.get_by_test_id("current-bid").aria_snapshot()
    assert read.count("3 dice showing 4") == 1 and "img" not in read and "×" not in read, read
    expect(guest.get_by_test_id("last-bid-0")).to_have_attribute("data-face", "4")
    expect(host.get_by_test_id("last-bid-0")).to_contain_text("৩")

    # Tanvir cannot compose anything at or below three 4s.
    expect(guest.get_by_test_id("bid-button")).to_be_enabled()
    qty = guest.get_by_test_id("bid-quantity")
    expect(qty).to_have_attribute("data-value", "3")
    expect(guest.get_by_test_id("qty-down")).to_be_disabled()
    for face in (2, 3, 4):
        button = guest.locator(f".face-buttons button[data-face='{face}']")
        expect(button).to_be_disabled()
        button.evaluate("b => b.click()")  # even a scripted tap does nothing
        button.click(force=True)
        expect(button).to_have_attribute("aria-pressed", "false")
    for face in (5, 6, 1):
        expect(guest.locator(f".face-buttons button[data-face='{face}']")).to_be_enabled()
    # The picker starts at the smallest raise: three 5s.
    pressed = guest.locator(".face-buttons button[aria-pressed=true]")
    expect(pressed).to_have_attribute("data-face", "5")
    # By keyboard: Tab from the first enabled face never lands on a refused face.
    guest.locator(".face-buttons button[data-face='5']").focus()
    reached = []
    for _ in range(4):
        guest.keyboard.press("Tab")
        reached.append(guest.evaluate("document.activeElement.dataset.key || ''"))
    assert not {"face-2", "face-3", "face-4"} & set(reached), reached
    assert "bid" in reached and "challenge" in reached, reached
    shoot(guest, "picker-after-3x4-en-360x640")
    # Four 2s by keyboard, announced in words in the live region.
    guest.get_by_test_id("qty-up").focus()
    guest.keyboard.press("Enter")
    expect(qty).to_have_attribute("data-value", "4")
    expect(guest.get_by_test_id("qty-up")).to_be_focused()
    expect(guest.locator("#live")).to_have_text("4 dice showing 5")
    # Down to the bottom of the range: "fewer" is disabled, the keyboard stays in
    # the stepper (on "more") instead of falling back to the top of the page.
    guest.get_by_test_id("qty-down").focus()
    guest.keyboard.press("Enter")
    expect(qty).to_have_attribute("data-value", "3")
    expect(guest.get_by_test_id("qty-down")).to_be_disabled()
    expect(guest.get_by_test_id("qty-up")).to_be_focused()
    guest.keyboard.press("Enter")
    expect(qty).to_have_attribute("data-value", "4")
    two = guest.locator(".face-buttons button[data-face='2']")
    expect(two).to_be_enabled()
    two.focus()
    guest.keyboard.press("Space")
    expect(two).to_have_attribute("aria-pressed", "true")
    bid = guest.get_by_test_id("bid-button")
    expect(bid).to_have_attribute("aria-label", "Bid 4 dice showing 2")
    before = version(guest)
    guest.get_by_test_id("bid-button").focus()
    guest.keyboard.press("Enter")
    expect(guest.locator("#room")).not_to_have_attribute("data-version", before)
    expect(host.get_by_test_id("current-bid")).to_have_attribute("data-quantity", "4")
    assert bid_events(server, code)[-1] == {"type": "bid", "seat": 1, "quantity": 4, "face": 2}

    # Rumi challenges: the cups open on both tables.
    host.get_by_test_id("challenge-button").click()
    for page in (host, guest):
        expect(page.get_by_test_id("reveal")).to_be_visible()
    reveal = host.evaluate("KG.state.snap.game.view.last_reveal")
    assert reveal["bid"] == {"seat": 1, "quantity": 4, "face": 2}
    wild = reveal["ones_wild"]
    count = sum(1 for hand in reveal["hands"] for d in hand if d == 2 or (wild and d == 1))
    assert reveal["count"] == count
    # The verdict's group is named by the bid in words; its picture is not read again.
    read = guest.get_by_test_id("reveal").aria_snapshot()
    assert read.count("4 dice showing 2") == 1 and "×" not in read, read
    for page, lang in ((host, "bn"), (guest, "en")):
        verdict = page.get_by_test_id("reveal")
        expect(verdict).to_have_attribute("data-count", str(count))
        expect(verdict).to_contain_text(str(count).translate(BN) if lang == "bn" else str(count))
        for seat, hand in enumerate(reveal["hands"]):
            shown = page.get_by_test_id(f"hand-{seat}")
            expect(shown.locator(":scope > .die")).to_have_count(len(hand))
            glowing = sum(1 for d in hand if d == 2 or (wild and d == 1))
            expect(shown.locator(".die.counted")).to_have_count(glowing)
        expect(page.get_by_test_id("loser")).to_have_count(1)
        loser_hand = page.get_by_test_id(f"hand-{reveal['loser']}")
        expect(loser_hand.get_by_test_id("loser")).to_have_count(1)
        assert_digits_of(page, lang)
        assert_no_sideways_scroll(page)
    # The moment moved on the page that allows motion, and not on the other.
    assert host.evaluate("KG.animated") >= 1
    assert guest.evaluate("KG.animated") == 0
    expect(guest.locator(".ld-lid, .ld-drop.is-dropping")).to_have_count(0)
    shoot(host, "reveal-bn-360x640")
    shoot(guest, "reveal-en-360x640")
    # The loser opens the next round; until they bid, the cups stay open on the table
    # (also after the moment's hold), and the new dice are theirs to see.
    loser = host if reveal["loser"] == 0 else guest
    expect(loser.get_by_test_id("bid-button")).to_be_enabled()
    expect(loser.get_by_test_id("my-dice").locator(".die")).to_have_count(4)
    loser.get_by_test_id("bid-button").click()
    for page in (host, guest):
        expect(page.get_by_test_id("reveal")).to_have_count(0, timeout=10_000)
        expect(page.get_by_test_id("current-bid")).to_have_attribute("data-quantity", "1")
    # The challenge stays a tap away.
    host.get_by_test_id("bid-more").locator("summary").click()
    expect(host.get_by_test_id("last-reveal").locator(".die.counted")).to_have_count(count)
    shoot(host, "last-reveal-bn-360x640")


@pytest.mark.timeout(400)
def test_the_replay_draws_the_same_table_with_every_cup_open_at_the_end(players):
    """A short game against a computer (challenge whenever allowed), then its page:
    the replay's last step is the final challenge, drawn by the table's renderer."""
    rumi = players("Rumi", "bn", PHONE)
    rumi.start()
    rumi.create_room("liars_dice", 2)
    page = rumi.page
    page.get_by_test_id("fill-bots").click()
    page.get_by_test_id("start").click()
    expect(page.locator("#room")).to_have_attribute("data-view", "table")
    actions = "[data-testid=challenge-button]:enabled, [data-testid=bid-button]:enabled"
    for _ in range(300):
        if page.locator("#room").get_attribute("data-status") == "finished":
            break
        before = version(page)
        action = page.locator(actions).first
        if action.count():
            action.click()
        # The game moved on, or it is (again) ours to move: after a reconnect on a
        # busy machine the page is back at the same version with its picker enabled.
        page.wait_for_function(
            "([v, sel]) => document.querySelector('#room').dataset.version !== v"
            " || document.querySelector(sel) !== null",
            arg=[before, actions],
        )
    expect(page.locator("#room")).to_have_attribute("data-status", "finished")
    # The last challenge is on the table: both hands, the loser marked.
    expect(page.get_by_test_id("reveal")).to_be_visible()
    expect(page.get_by_test_id("loser")).to_have_count(1)

    page.goto(rumi.base_url + page.evaluate("KG.state.snap.game.page_url"))
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-at", "0")
    page.locator("#replay [data-go=last]").click()
    board = replay.locator("[data-replay-board]")
    expect(board.locator(".ld-seat")).to_have_count(2)
    expect(board.get_by_test_id("reveal")).to_be_visible()
    expect(board.locator(".die.counted")).to_have_count(
        int(board.get_by_test_id("reveal").get_attribute("data-count"))
    )
    expect(board.get_by_test_id("my-dice")).to_have_count(0)  # nobody's view
    assert not LATIN.search(board.inner_text()), board.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    board.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "replay-last-bn-360x640.png"))


def opener_after_a_challenge_at_six(players, lang: str, **context) -> Page:
    """Rumi and Tanvir with four computers: Rumi opens, Tanvir challenges at
    once. The page of whichever of them lost, who opens the next round."""
    rumi = players("Rumi", lang, PHONE, **context)
    tanvir = players("Tanvir", lang, PHONE, **context)
    seat_two_and_start(rumi, tanvir, "liars_dice", 6)
    expect(rumi.page.get_by_test_id("bid-button")).to_be_enabled()
    rumi.page.get_by_test_id("bid-button").click()
    expect(tanvir.page.get_by_test_id("challenge-button")).to_be_enabled()
    tanvir.page.get_by_test_id("challenge-button").click()
    expect(tanvir.page.get_by_test_id("reveal")).to_be_visible()
    loser = tanvir.page.evaluate("KG.state.snap.game.view.last_reveal.loser")
    page = tanvir.page if loser == 1 else rumi.page
    expect(page.get_by_test_id("bid-button")).to_be_enabled()  # the loser opens
    return page


@pytest.mark.timeout(120)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_the_player_who_opens_after_a_challenge_sees_their_new_dice(players, lang):
    """Six at the table: the open cups make it taller than a phone's board
    space, and the picker covered the new dice of the player who had to bid
    next (a phone drill)."""
    page = opener_after_a_challenge_at_six(players, lang)
    expect(page.get_by_test_id("reveal")).to_be_visible()
    dice = page.get_by_test_id("my-dice").locator(".die")
    expect(dice).to_have_count(4)
    page.wait_for_function("""() => {
      const row = document.querySelector('[data-testid=my-dice]').getBoundingClientRect();
      const picker = document.querySelector('[data-testid=controls]').getBoundingClientRect();
      return row.bottom <= picker.top && row.top >= 0;
    }""")
    board = page.get_by_test_id("board")
    assert board.evaluate("b => b.scrollHeight > b.clientHeight")  # it had to scroll
    assert_no_sideways_scroll(page)
    shoot(page, f"after-a-challenge-6-{lang}-360x640")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_with_large_text_the_bid_comes_into_view_when_the_turn_does(players, lang):
    """At 200% text the table is a page that scrolls, and the Bid button sat
    below the fold while the clock ran (a phone drill)."""
    rumi, tanvir = players("Rumi", lang, PHONE), players("Tanvir", lang, PHONE)
    seat_two(rumi, tanvir, "liars_dice", 2)
    for player in (rumi, tanvir):
        text_size(player.page, 200)
    rumi.page.get_by_test_id("start").click()
    page = tanvir.page
    expect(page.locator("#room")).to_have_attribute("data-view", "table")
    page.evaluate("() => window.scrollTo(0, 0)")  # reading the table from its top
    # The page is longer than the screen: the controls start below the fold.
    assert page.evaluate("() => document.documentElement.scrollHeight") > PHONE["height"]
    expect(rumi.page.get_by_test_id("bid-button")).to_be_in_viewport()  # Rumi opens
    rumi.page.get_by_test_id("bid-button").click()
    bid = page.get_by_test_id("bid-button")
    expect(bid).to_be_enabled()
    expect(bid).to_be_in_viewport()  # his turn brought it up
    assert_no_sideways_scroll(page)


@pytest.mark.timeout(120)
def test_a_player_reading_the_open_cups_keeps_their_place_when_the_table_is_drawn_again(players):
    """Six at the table, the cups open: the board of the player who opens the
    next round scrolls (down to their new dice, once). When the table was
    drawn again (the challenge's moment ending, any update) it jumped under
    the thumb of a player who had scrolled up to read the cups."""
    opener = opener_after_a_challenge_at_six(players, "bn", reduced_motion="no-preference")
    expect(opener.locator(".ld-table.is-moment")).to_have_count(1)  # the moment is on
    board = opener.get_by_test_id("board")
    opener.wait_for_function(
        "() => document.querySelector('[data-testid=board]').scrollTop > 0")  # at the new dice
    # The player scrolls up a little, to read the cups.
    where = board.evaluate(
        "b => { b.scrollTop = Math.floor(b.scrollTop / 3); return b.scrollTop; }")
    assert where > 0
    # The moment ends and the table is drawn again, cups still open.
    expect(opener.locator(".ld-table.is-moment")).to_have_count(0, timeout=10_000)
    expect(opener.get_by_test_id("reveal")).to_be_visible()
    assert board.evaluate("b => b.scrollTop") == where
