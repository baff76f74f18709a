"""The last gaps of issue #14 on a 360x640 phone, measured.

- The hexagon (6-seat) Ludo board fills the phone's width, its tokens are at
  least 24 px (the tap target too) with digits one can read, and the whole
  board and the action are still on one screen, at 360x640 and at 320x568.
- The quick reactions fit the phone's width without scrolling sideways.
- The Snakes & Ladders seat strip shows the players' names, not "Ru…".
- Every page other than the table, in both languages, at 200% text on a 360 px
  phone: nothing scrolls sideways and no control is cut off.
- On every page and table, at normal and at 200% text, no word is split across
  two lines; at 200% no radio or check box is squeezed narrower than it is tall.

Every table is on a server whose turns do not run out (``play.calm_server``);
the test waits for the page's own state. Screenshots go to /tmp/shots-phone/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from rooms import guessing
from rooms.codes import ALPHABET
from tests.browser.conftest import PHONE
from tests.browser.play import calm_server, open_more
from tests.browser.test_one_screen import (
    SMALL_PHONE,
    at_my_turn,
    box_of,
    fmt,
    inside,
    set_text_size,
)
from tests.servers import run_manage

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

SHOTS = Path("/tmp/shots-phone")
THUMB = 24  # px: the smallest token (and token target) issue #14 accepts


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("phone-fit-db")) as running:
        yield running


@pytest.fixture(scope="module")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


TOKEN_SIZES = """() => [...document.querySelectorAll('[data-testid=ludo-board] .token')]
  .map(token => {
    const shape = token.querySelector('.token-shape').getBoundingClientRect();
    const target = token.querySelector('.token-ring').getBoundingClientRect();
    const digit = token.querySelector('text').getBoundingClientRect();
    return {id: token.dataset.seat + '-' + token.dataset.token,
            stacked: token.style.transform.indexOf('scale(1)') < 0,
            shape: Math.max(shape.width, shape.height),
            target: Math.min(target.width, target.height), digit: digit.height};
  })"""


WIDER = """width => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > width + 0.5 || e.scrollWidth > e.clientWidth + 1
          && getComputedStyle(e).overflowX === 'visible')
  .slice(0, 8).map(e => e.tagName.toLowerCase() + '.' + e.className + ' '
    + Math.round(e.getBoundingClientRect().right) + ' '
    + (e.textContent || '').trim().slice(0, 30))"""


def wider_than(page: Page, width: int) -> list[str]:
    """What sticks out to the right of ``width`` (for the failure message)."""
    return page.evaluate(WIDER, width)


def token_sizes(page: Page) -> list[dict]:
    return page.evaluate(TOKEN_SIZES)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_the_hexagon_board_has_thumb_sized_tokens_on_one_phone_screen(players, shots, lang):
    player = players("Rumi" if lang == "bn" else "Tanvir", lang, PHONE)
    page = at_my_turn(player, "ludo", 6, "[data-testid=roll-button]")
    page.evaluate("() => window.scrollTo(0, 0)")
    board = box_of(page, "[data-testid=ludo-board]")
    roll = box_of(page, "[data-testid=roll-button]")
    sizes = token_sizes(page)
    single = [s for s in sizes if not s["stacked"]]
    smallest = min(s["shape"] for s in single)
    print(f"\nludo-6 {lang} 360x640: board {fmt(board)}; roll {fmt(roll)}; "
          f"tokens {len(sizes)}, smallest {smallest:.1f} px, target "
          f"{min(s['target'] for s in single):.1f} px, "
          f"digit {min(s['digit'] for s in single):.1f} px")
    page.screenshot(path=str(shots / f"ludo-6-{lang}-360x640.png"))
    assert len(sizes) == 24 and len(single) >= 20, sizes
    # The board takes the phone's width, not a square's height.
    assert board["width"] >= 0.95 * (PHONE["width"] - 16), board
    assert inside(board, PHONE) and inside(roll, PHONE), (board, roll)
    assert roll["y"] >= PHONE["height"] * 0.55 and roll["height"] >= 44, roll
    for size in single:
        assert size["shape"] >= THUMB and size["target"] >= THUMB, size
        assert size["digit"] >= 11, size  # the digit's line box: ~13 px text at least
    for size in sizes:
        assert size["target"] >= 0.7 * THUMB, size  # stacked: smaller, still tappable

    # A smaller phone, at the same turn: still one screen, the tokens smaller.
    page.set_viewport_size(SMALL_PHONE)
    page.evaluate("() => window.scrollTo(0, 0)")
    small_board = box_of(page, "[data-testid=ludo-board]")
    small_roll = box_of(page, "[data-testid=roll-button]")
    small = min(s["shape"] for s in token_sizes(page) if not s["stacked"])
    print(f"ludo-6 {lang} 320x568: board {fmt(small_board)}; smallest token {small:.1f} px")
    page.screenshot(path=str(shots / f"ludo-6-{lang}-320x568.png"))
    assert inside(small_board, SMALL_PHONE) and inside(small_roll, SMALL_PHONE)
    # The issue asks 24 px at 360 px; here the board is shorter (17-20 px tokens seen).
    assert small >= 0.65 * THUMB, small
    assert page.evaluate("() => document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
    page.set_viewport_size(PHONE)

    # After the roll the token choices (if the dice gave one) are on the same screen;
    # what the computers do next is theirs, so the sizes then are a figure, not a bound.
    before = page.locator("#room").get_attribute("data-version")
    page.get_by_test_id("roll-button").click()
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    for button in page.locator("[data-testid^=token-]").all():
        assert inside(button.bounding_box(), PHONE), "token choice below the fold"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    after = min(s["shape"] for s in token_sizes(page) if not s["stacked"])
    choosing = page.locator("[data-testid^=token-]").count() > 0
    print(f"ludo-6 {lang} after the roll (choosing: {choosing}): smallest token {after:.1f} px")


NAME_FITS = """() => [...document.querySelectorAll('.table-seats .table-seat .seat-name, .ld-name')]
  .filter(name => name.getClientRects().length)
  .map(name => ({text: name.textContent, clipped: name.scrollHeight > name.clientHeight + 1
                  || name.scrollWidth > name.clientWidth + 1,
                 lines: Math.round(name.getBoundingClientRect().height
                                   / parseFloat(getComputedStyle(name).lineHeight))}))"""

REACTIONS_FIT = """() => {
  const bar = document.querySelector('.reaction-bar');
  const buttons = [...bar.querySelectorAll('button')].map(b => b.getBoundingClientRect());
  return {scrolls: bar.scrollWidth > bar.clientWidth + 1, count: buttons.length,
          right: Math.max(...buttons.map(b => b.right)),
          left: Math.min(...buttons.map(b => b.left)),
          narrowest: Math.min(...buttons.map(b => b.width)),
          lowest: Math.min(...buttons.map(b => b.height)),
          page: document.documentElement.scrollWidth};
}"""


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_snakes_seats_show_whole_names_and_the_reactions_fit_a_phone(players, shots, lang):
    """Four seats on a 360 px phone: every name whole (two lines at most), the
    table still on one screen; then the quick reactions in "More", at normal
    and at 200% text: no sideways scrolling of the bar or of the page."""
    name = "রুমানা আক্তার" if lang == "bn" else "Rumana Akter"
    player = players(name, lang, PHONE)
    page = at_my_turn(player, "snakes", 4, "[data-testid=roll-button]")
    page.evaluate("() => window.scrollTo(0, 0)")
    names = page.evaluate(NAME_FITS)
    board = box_of(page, "[data-testid=snakes-board]")
    roll = box_of(page, "[data-testid=roll-button]")
    strip = box_of(page, ".table-seats")
    print(f"\nsnakes-4 {lang}: names {names}; strip {fmt(strip)}; board {fmt(board)}; "
          f"roll {fmt(roll)}")
    page.screenshot(path=str(shots / f"snakes-4-{lang}-360x640.png"))
    assert len(names) == 4
    assert any(name in n["text"] for n in names), names
    for shown in names:
        assert not shown["clipped"] and shown["lines"] <= 2, shown
    assert inside(strip, PHONE) and inside(board, PHONE) and inside(roll, PHONE)
    assert min(board["width"], board["height"]) >= 0.9 * (PHONE["width"] - 16), board
    assert roll["y"] >= PHONE["height"] * 0.55, roll

    for text_size in (16, 32):
        set_text_size(page, text_size)
        open_more(page)
        fit = page.evaluate(REACTIONS_FIT)
        print(f"reactions {lang} {text_size} px text: {fit}")
        page.screenshot(path=str(shots / f"snakes-4-{lang}-reactions-{text_size}px.png"))
        assert fit["count"] == 8 and not fit["scrolls"], fit
        assert fit["left"] >= 0 and fit["right"] <= PHONE["width"], fit
        assert fit["page"] <= PHONE["width"], (fit, wider_than(page, PHONE["width"]))
        assert fit["narrowest"] >= 44 and fit["lowest"] >= 44, fit
        if page.get_by_test_id("more-button").is_visible():
            page.get_by_test_id("more-button").click()  # put the sheet away
    set_text_size(page, 16)


# Every page a player meets outside the table: label -> path ({game_ids} filled in).
PAGES = {
    "home-first-visit": "/",
    "home": "/",  # the lobby's ways in: play now, create a room, join with a code
    "rules-liars-dice": "/rules/liars-dice/",
    "rules-ludo": "/rules/ludo/",
    "rules-snakes": "/rules/snakes-and-ladders/",
    "leaderboard-liars-dice": "/leaderboard/liars-dice/",
    "leaderboard-ludo": "/leaderboard/ludo/",
    "leaderboard-snakes": "/leaderboard/snakes-and-ladders/",
    "sign-in": "/accounts/login/",
    "sign-up": "/accounts/signup/",
    "password-reset": "/accounts/password/reset/",
    "my-games": "/accounts/profile/",  # the player's history, with a game in it
    "game-liars-dice": "/games/{liars_dice}/",  # record, replay, the dice verified
    "game-ludo": "/games/{ludo}/",
    "game-snakes": "/games/{snakes}/",
    "verify": "/verify/",
    "offline": "/offline/",
    "room-not-found": "/r/PADA/",
    # Any other address: templates/404.html, which only a server with DEBUG off
    # shows (these servers run with DEBUG on), so tests/test_not_found_page.py.
    "rate-limited": "/r/BUMA/",
    "room-lobby": None,  # a room of one's own, before the start
}
STATUS = {"room-not-found": 404, "rate-limited": 429}

# Controls (and their text) that stick out of the screen or out of a box that
# clips them: a control cut off. Boxes that scroll (a table in its own box) are
# fine; words said only to screen readers (1 px, clipped) are not controls.
CUT_OFF = """width => {
  const controls = 'a, button, input, select, textarea, summary, label, .button';
  const out = [];
  for (const c of document.querySelectorAll(controls)) {
    if (!c.getClientRects().length || c.closest('.visually-hidden, .skip-link')) continue;
    const box = c.getBoundingClientRect();
    if (box.width < 2) continue;
    let clipped = box.left < -0.5 || box.right > width + 0.5;
    for (let up = c.parentElement; up && !clipped; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (!/hidden|clip/.test(style.overflowX)) continue;
      const edge = up.getBoundingClientRect();
      clipped = box.left < edge.left - 0.5 || box.right > edge.right + 0.5;
    }
    if (clipped) out.push(c.tagName.toLowerCase() + ' ' + (c.textContent || c.value || '').trim()
                          .slice(0, 30) + ' ' + Math.round(box.left) + '-' + Math.round(box.right));
  }
  return out;
}"""

# Words split across two lines (a button's "রাখুন" as "রাখু" over "ন"): every run
# of letters between spaces, hyphens, dashes and slashes, where a line may break,
# is measured by the lines its boxes stand on. Room codes, seeds and hashes
# (code, translate="no") may break anywhere, and do; so may a player's name in a
# seat's narrow box (a long one-word name has nowhere else to go).
BROKEN_WORDS = """() => {
  const out = [];
  const skip = 'code, [translate=no], .visually-hidden, .seed-hash, .ld-name, .seat-name, '
    + 'script, style';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const parent = node.parentElement;
    if (!parent || !parent.getClientRects().length || parent.closest(skip)) continue;
    for (const word of node.textContent.matchAll(/[^\\s\\-\u2013\u2014\\/]+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter(box => box.width > 0)
                            .map(box => Math.round(box.top)));
      if (lines.size > 1) out.push(parent.tagName.toLowerCase() + ' ' + word[0]);
    }
  }
  return out;
}"""


def broken_words(page: Page) -> list[str]:
    return page.evaluate(BROKEN_WORDS)


def whole_page_shot(page: Page, path: Path) -> None:
    """The whole page at the text size set. Playwright's ``full_page`` screenshot
    resizes the view and drops the CDP font sizes (``set_text_size``), so the view
    is made as tall as the page instead, and put back."""
    height = page.evaluate("() => document.documentElement.scrollHeight")
    page.set_viewport_size({"width": PHONE["width"], "height": height})
    page.screenshot(path=str(path))
    page.set_viewport_size(PHONE)


@pytest.fixture(scope="module")
def finished_games(server) -> dict:
    """One finished game of each kind in the server's database: game -> id."""
    out = run_manage("shell", "-c", (
        "import json\n"
        "from tests.history.factories import record_for, stored_game\n"
        "print(json.dumps({g: stored_game(record_for(g), names={0: 'রুমানা আক্তার'}).id "
        "for g in ('liars_dice', 'ludo', 'snakes')}))\n"
    ), env=server.env)
    return json.loads(out.strip().splitlines()[-1])


def a_game_in_my_history(server, page: Page) -> None:
    """A finished Ludo game in which this browser's session had seat 1."""
    session = next(c["value"] for c in page.context.cookies() if c["name"] == "sessionid")
    run_manage("shell", "-c", (
        "from tests.history.factories import record_for, stored_game\n"
        f"stored_game(record_for('ludo'), humans={{1: {session!r}}}, names={{1: 'রুমানা'}})\n"
    ), env=server.env)


def spend_the_guesses(player) -> None:
    """Miss room codes until this session is refused for a while (rooms.guessing)."""
    for n in range(guessing.SESSION_MISSES):
        missed = player.context.request.get(f"{player.base_url}/api/rooms/GUD{ALPHABET[n]}/")
        assert missed.status in (404, 429)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("lang", ["bn", "en"])
@pytest.mark.parametrize("label", list(PAGES))
def test_every_other_page_fits_a_phone_at_200_percent_text(
        players, server, finished_games, shots, label, lang):
    player = players("রুমানা আক্তার" if lang == "bn" else "Rumana Akter", lang, PHONE)
    page = player.page
    if label != "home-first-visit":
        player.start()
    if label == "my-games":
        a_game_in_my_history(server, page)
    if label == "rate-limited":
        spend_the_guesses(player)
    if label == "room-lobby":
        player.create_room("ludo", 6)
        expect(page.locator("#room")).to_have_attribute("data-view", "lobby")
    else:
        response = page.goto(player.base_url + PAGES[label].format(**finished_games))
        assert response is not None and response.status == STATUS.get(label, 200), label
    expect(page.locator("html")).to_have_attribute("lang", lang)
    if label.startswith("game-"):
        expect(page.locator("#replay, [data-url]").first).to_be_attached()
    if label == "my-games":
        expect(page.locator(".recent-games li")).to_have_count(1)
    page.evaluate("() => document.fonts.ready")
    broken_at_normal_text = broken_words(page)
    set_text_size(page, 32)
    expect(page.locator("html")).to_have_css("font-size", "32px")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    cut = page.evaluate(CUT_OFF, PHONE["width"])
    wide = wider_than(page, PHONE["width"])
    broken = broken_words(page)
    # A radio or check box beside words that wrap is squeezed narrow by its row.
    squeezed = page.evaluate("""() => [...document.querySelectorAll(
        'input[type=radio], input[type=checkbox]')].filter(i => i.getClientRects().length)
        .map(i => i.getBoundingClientRect()).filter(box => box.width < box.height - 1)
        .map(box => Math.round(box.width) + 'x' + Math.round(box.height))""")
    print(f"\n{label} {lang} 200% text: scrollWidth {width}; cut off {cut}; wide {wide}; "
          f"words broken {broken_at_normal_text} (normal text), {broken} (200%); "
          f"boxes squeezed {squeezed}")
    page.screenshot(path=str(shots / f"page-{label}-{lang}-text200-top.png"))
    whole_page_shot(page, shots / f"page-{label}-{lang}-text200.png")
    assert width <= PHONE["width"], (width, wide)
    assert not cut, cut
    assert not broken_at_normal_text and not broken, (broken_at_normal_text, broken)
    assert not squeezed, squeezed
    set_text_size(page, 16)


# Every table a phone shows: game, seats, the main action at the host's first turn.
TABLES = {
    "liars_dice-2": ("liars_dice", 2, "[data-testid=bid-button]"),
    "liars_dice-4": ("liars_dice", 4, "[data-testid=bid-button]"),
    "liars_dice-6": ("liars_dice", 6, "[data-testid=bid-button]"),
    "ludo-4": ("ludo", 4, "[data-testid=roll-button]"),
    "ludo-6": ("ludo", 6, "[data-testid=roll-button]"),
    "snakes-4": ("snakes", 4, "[data-testid=roll-button]"),
}

# The words a player reads on the table (the "More" sheet opened), without room
# codes and seeds (translate="no", <code>), words said only to screen readers,
# and words marked as another language (the language switch's "English").
SHOWN_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const parent = node.parentElement;
    const skip = '[translate=no], code, script, style, .visually-hidden, .room-code-small, '
      + '[lang=en]';
    if (!parent || parent.closest(skip)) continue;
    if (!parent.getClientRects().length || getComputedStyle(parent).visibility === 'hidden')
      continue;
    if (node.textContent.trim()) out.push(node.textContent.trim());
  }
  return out;
}"""


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
@pytest.mark.parametrize("table", list(TABLES))
def test_every_table_reads_in_its_language_at_normal_and_200_percent_text(
        players, shots, table, lang):
    game, seats, action = TABLES[table]
    player = players("রুমানা আক্তার" if lang == "bn" else "Rumana Akter", lang, PHONE)
    page = at_my_turn(player, game, seats, action)
    for text_size in (16, 32):
        set_text_size(page, text_size)
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(shots / f"table-{table}-{lang}-{text_size}px.png"))
        wide = wider_than(page, PHONE["width"])
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"], wide
        # Every seat's name whole, and its line (dice left, square, tokens home) too.
        names = page.evaluate(NAME_FITS)
        assert len(names) == seats and not [n for n in names if n["clipped"]], names
        cut_lines = page.evaluate("""() => [...document.querySelectorAll('.table-seat .seat-extra')]
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")
        assert not cut_lines, cut_lines
        broken = broken_words(page)
        print(f"\n{table} {lang} {text_size} px: words broken {broken}")
        assert not broken, broken
        open_more(page)
        page.screenshot(path=str(shots / f"table-{table}-{lang}-{text_size}px-more.png"))
        if lang == "bn":
            shown = page.evaluate(SHOWN_TEXT)
            latin_digits = [t for t in shown if re.search(r"[0-9]", t)]
            latin_words = [t for t in shown if re.search(r"[A-Za-z]{2,}", t)]
            print(f"\n{table} {text_size} px: Latin digits {latin_digits}; words {latin_words}")
            assert not latin_digits and not latin_words, (latin_digits, latin_words)
        if page.get_by_test_id("more-button").is_visible():
            page.get_by_test_id("more-button").click()
    set_text_size(page, 16)


TOKEN_LETTERS = """() => [...document.querySelectorAll('[data-testid=snakes-board] .token text')]
  .map(t => t.textContent)"""


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
@pytest.mark.parametrize("game", ["ludo", "snakes"])
def test_with_two_people_at_the_table_every_chip_line_is_whole(players, shots, game, lang):
    """The phone drill's Ludo table with two people: the dot that says the
    other person is here cut their line short ("🏠 ০/"). And Snakes' tokens
    carried "R", "G" on a Bengali page, letters that mean nothing there."""
    from tests.browser.play import seat_two_and_start

    rumi = players("রুমানা আক্তার" if lang == "bn" else "Rumana Akter", lang, PHONE)
    tanvir = players("তানভীর" if lang == "bn" else "Tanvir", lang, PHONE)
    seat_two_and_start(rumi, tanvir, game, 4)
    page = rumi.page
    expect(page.locator(".table-seat[data-seat='1'] .conn.on")).to_have_count(1)
    for text_size in (16, 32):
        set_text_size(page, text_size)
        page.screenshot(path=str(shots / f"two-people-{game}-{lang}-{text_size}px.png"))
        names = page.evaluate(NAME_FITS)
        assert len(names) == 4 and not [n for n in names if n["clipped"]], names
        cut_lines = page.evaluate("""() => [...document.querySelectorAll('.table-seat .seat-extra')]
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")
        assert not cut_lines, cut_lines
    set_text_size(page, 16)
    if game == "snakes":
        letters = page.evaluate(TOKEN_LETTERS)
        expected = ["ল", "স", "হ", "ন"] if lang == "bn" else ["R", "G", "Y", "B"]
        assert sorted(letters) == sorted(expected), letters
