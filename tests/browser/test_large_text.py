"""Large text on a phone: 200% text at 360x640, Bengali and English (a drill).

With the text at 200% the drill saw, on a 360x640 phone: Liar's Dice seat cards
that stood player names one letter per line, the bid in the middle cut off,
and the player's own dice under the bid controls; Ludo's player chips with
names letter by letter; in the lobby, the Start bar held at the bottom of the
screen and the header left about 40 px of the page to scroll through.

Measured here, for the Liar's Dice table (4 and 6 seats; at the host's first
turn, and again with a bid on the cup), Ludo (the square board, 4 seats, and
the hexagon, 5 and 6), Snakes (4) and the lobby (seats open, then full), in
both languages:

- no word of the page is split over two lines, the players' names included,
  and no name shows more than two lines (a longer one ends in an ellipsis)
  nor is a letter or two wide;
- nothing is cut off: no box that clips hides some of what it holds (an
  ellipsis, a name's own way of giving way, excepted), nothing of the cup's
  bid sticks out of it, and nothing sticks out of the screen sideways;
- nothing is covered: the seats, the cup, the board and the controls do not
  overlap, and every one of the player's own dice, every control, seat and
  name can be scrolled whole into view (on the screen and inside any box that
  scrolls) and is then what a finger on it touches;
- in the lobby, whatever stays on the screen while the page scrolls (the
  host's Start bar) leaves at least half of it to the page, and every
  control, heading, label and seat can be brought whole into view above it.

Fitting one screen is not asked at 200% text (the page scrolls down, never
sideways); tests/browser/test_one_screen.py keeps the table on one screen at
normal text.

How 200% text is emulated, two ways, each set before the first page opens
(a phone's setting is there before the page loads):

- ``default-font``: Chromium's default font size is 32 px instead of 16 px,
  over the DevTools protocol (``Page.setFontSizes``, as test_one_screen.py's
  ``set_text_size`` does, its session kept open so that it holds from page to
  page). The CSS default font size grows: ``rem`` and ``em``,
  and the ``em`` of media queries too. This is what "scales the CSS default
  font size" means, and what the existing 200% checks use; the site's
  large-text media queries answer it, and with it the drill's faults did not
  show, except the lobby's Start bar.
- ``root-font``: the root element's font size at 200% (an init script, through
  the CSSOM). ``rem`` grows but a media query's ``em`` stays 16 px: the way
  Android Chrome's text scaling reaches a page when it grows the text
  (accessibility font scale) rather than the default font size, so that
  viewport media queries in em do not know. This reproduces every fault the
  drill saw, one letter per line included.

A page zoom (or a device scale factor) is not text scaling: it shrinks the CSS
viewport, which the 320 px checks elsewhere cover.

Every table is on a server whose turns do not run out (``play.calm_server``):
the computers answer at once after the host's move, and the test reads the
page only at the host's turn. Screenshots (the top of the page and its end, at
200% text) go to test-artifacts/screenshots/large-text-*.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE
from tests.browser.play import calm_server, version
from tests.browser.test_one_screen import at_my_turn

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

NAMES = {"bn": "রুমানা আক্তার", "en": "Rumana Akter"}

# game, seats, the main action at the host's first turn.
TABLES = {
    "liars_dice-4": ("liars_dice", 4, "[data-testid=bid-button]"),
    "liars_dice-6": ("liars_dice", 6, "[data-testid=bid-button]"),
    "ludo-4": ("ludo", 4, "[data-testid=roll-button]"),
    "ludo-5": ("ludo", 5, "[data-testid=roll-button]"),
    "ludo-6": ("ludo", 6, "[data-testid=roll-button]"),
    "snakes-4": ("snakes", 4, "[data-testid=roll-button]"),
}

NAME_SELECTOR = ".ld-name, .ld-who, .table-seat .seat-name, .seat-row .seat-name"
SEATS_AND_CUP = ".ld-table > .ld-seat, .ld-table > .cup, .table-seats > .table-seat"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("large-text-db")) as running:
        yield running


# Words split over two lines, names included: every run of letters between
# spaces, hyphens, dashes and slashes (where a line may break) is measured by
# the lines its boxes stand on. Room codes, seeds and hashes may break anywhere.
BROKEN_WORDS = """() => {
  const out = [];
  const skip = 'code, [translate=no], .visually-hidden, .seed-hash, script, style';
  const walker = document.createTreeWalker(document.querySelector('#room'),
                                           NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const parent = node.parentElement;
    if (!parent || !parent.checkVisibility() || parent.closest(skip)) continue;
    for (const word of node.textContent.matchAll(/[^\\s\\-\u2013\u2014\\/]+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter(box => box.width > 0)
                            .map(box => Math.round(box.top)));
      if (lines.size > 1) out.push(word[0] + ' (' + lines.size + ' lines, '
                                   + parent.className + ')');
    }
  }
  return out;
}"""

# Every name shown: its lines (its height over its line height) and its width.
NAMES_SHOWN = """selector => [...document.querySelectorAll(selector)]
  .filter(name => name.checkVisibility() && !name.closest('.visually-hidden'))
  .map(name => {
    const box = name.getBoundingClientRect();
    const style = getComputedStyle(name);
    const line = parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize);
    const tops = new Set();
    const walker = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode());) {
      if (node.parentElement.closest('.visually-hidden')) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      [...range.getClientRects()].filter(b => b.width > 0)
        .forEach(b => tops.add(Math.round(b.top)));
    }
    const ellipsis = style.textOverflow === 'ellipsis'
      || (style.webkitLineClamp && style.webkitLineClamp !== 'none');
    return {text: name.innerText.trim(), cls: name.className, laidOut: tops.size,
            shown: Math.round(box.height / line), ellipsis: ellipsis,
            width: Math.round(box.width), em: Math.round(parseFloat(style.fontSize))};
  })"""

# Boxes that clip what they hold (overflow hidden or clip) and hide some of it:
# an ellipsis (text-overflow, or a line clamp, which ends the last line in one)
# is the way a name gives way, and is not counted; nor are words said only to
# screen readers.
CLIPPED = """() => {
  const out = [];
  for (const e of document.querySelectorAll('#room *')) {
    if (!e.checkVisibility() || e.closest('.visually-hidden')) continue;
    if (e.clientWidth <= 1 || e.clientHeight <= 1) continue;  // said to screen readers only
    const style = getComputedStyle(e);
    const clips = /hidden|clip/.test(style.overflowX + ' ' + style.overflowY);
    if (!clips) continue;
    const ellipsis = style.textOverflow === 'ellipsis'
      || (style.webkitLineClamp && style.webkitLineClamp !== 'none');
    if (ellipsis) continue;
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) {
      out.push(e.tagName.toLowerCase() + '.' + e.className + ' ' + e.scrollWidth + 'x'
               + e.scrollHeight + ' in ' + e.clientWidth + 'x' + e.clientHeight + ' '
               + (e.textContent || '').trim().slice(0, 30));
    }
  }
  return out;
}"""

# What the cup in the middle of the Liar's Dice table holds, and whether each
# piece is inside the cup (and the cup inside the screen's width).
CUP = """width => {
  const cup = document.querySelector('.ld-table .cup');
  if (!cup) return null;
  const edge = cup.getBoundingClientRect();
  const out = [];
  for (const e of cup.querySelectorAll('*')) {
    if (!e.checkVisibility() || e.closest('.visually-hidden')) continue;
    const box = e.getBoundingClientRect();
    if (box.width < 1) continue;
    if (box.left < edge.left - 0.5 || box.right > edge.right + 0.5
        || box.top < edge.top - 0.5 || box.bottom > edge.bottom + 0.5) {
      out.push(e.tagName.toLowerCase() + '.' + e.className.baseVal + e.className + ' '
               + Math.round(box.left) + '-' + Math.round(box.right) + ' outside '
               + Math.round(edge.left) + '-' + Math.round(edge.right));
    }
  }
  return {cup: [Math.round(edge.left), Math.round(edge.right), Math.round(edge.width),
                Math.round(edge.height)], outside: out,
          inScreen: edge.left >= -0.5 && edge.right <= width + 0.5};
}"""

# Pieces of the table that must not lie over one another: the seats (chips and
# the cards around the cup), the cup, the board, the controls' bar, and each
# of the player's own dice against every one of those it is not inside.
OVERLAPS = """() => {
  const pieces = [...document.querySelectorAll(
      '.ld-table > .ld-seat, .ld-table > .cup, .table-seats > .table-seat, '
      + '[data-testid=my-dice] .die, [data-testid=controls] button, '
      + '[data-testid=controls] output, [data-testid=ludo-board], [data-testid=snakes-board]')]
    .filter(e => e.checkVisibility());
  const name = e => (e.dataset.testid || e.dataset.seat || e.className.baseVal
                     || e.className || e.tagName).toString().slice(0, 30);
  const out = [];
  for (let i = 0; i < pieces.length; i++) {
    for (let j = i + 1; j < pieces.length; j++) {
      const a = pieces[i], b = pieces[j];
      if (a.contains(b) || b.contains(a)) continue;
      const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 1 && h > 1) out.push(name(a) + ' x ' + name(b) + ' ' + Math.round(w) + 'x'
                                   + Math.round(h));
    }
  }
  return out;
}"""

# Each element of `selector`, scrolled into view: is it whole inside the screen's
# width, and is what a finger touches at its middle and a quarter in from its
# corners the element itself (not a bar, a seat or a control lying over it, nor
# the edge of a box that scrolls inside the page)? Returns the ones that are
# not, and how many were looked at.
REACHABLE = """([selector, block]) => {
  const out = [];
  const all = [...document.querySelectorAll(selector)]
    .filter(e => e.checkVisibility({visibilityProperty: true})
                 && !e.closest('.visually-hidden, .skip-link'))
    .filter(e => e.getBoundingClientRect().width >= 2);
  for (const e of all) {
    e.scrollIntoView({block: block, inline: 'nearest', behavior: 'instant'});
    const box = e.getBoundingClientRect();
    const label = e.tagName.toLowerCase() + ' ' + (e.dataset.testid || e.className.baseVal
                  || e.className || '') + ' "' + (e.textContent || e.value || '').trim()
                  .slice(0, 20) + '"';
    if (box.left < -0.5 || box.right > window.innerWidth + 0.5) {
      out.push(label + ' sideways ' + Math.round(box.left) + '-' + Math.round(box.right));
      continue;
    }
    // Whole on the screen, and inside every box around it that clips or scrolls.
    let edges = {top: 0, bottom: window.innerHeight, what: 'the screen'};
    for (let up = e.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowY === 'visible' && style.overflowX === 'visible') continue;
      const edge = up.getBoundingClientRect();
      if (edge.top > edges.top || edge.bottom < edges.bottom) {
        edges = {top: Math.max(edges.top, edge.top), bottom: Math.min(edges.bottom, edge.bottom),
                 what: up.tagName.toLowerCase() + '.' + up.className};
      }
    }
    if (box.top < edges.top - 0.5 || box.bottom > edges.bottom + 0.5) {
      out.push(label + ' ' + Math.round(box.height) + ' px tall, not whole in '
               + Math.round(edges.bottom - edges.top) + ' px of ' + edges.what);
      continue;
    }
    // A box: its middle and four points a quarter in from its corners (inside
    // a rounded corner, where a pill-shaped button's corner is not its own).
    // Words that wrap (a name inline in its seat): the middle of each line.
    const rects = [...e.getClientRects()].filter(r => r.width > 0);
    const points = rects.length > 1 ? rects.map(r => [r.left + r.width / 2, r.top + r.height / 2])
      : [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]
        .map(([x, y]) => [box.left + x * box.width, box.top + y * box.height]);
    for (const [x, y] of points) {
      const hit = document.elementFromPoint(x, y);
      if (!hit || !(e === hit || e.contains(hit) || (e.control && e.control === hit))) {
        out.push(label + ' covered at ' + Math.round(x) + ',' + Math.round(y) + ' by '
                 + (hit ? hit.tagName.toLowerCase() + '.' + (hit.className.baseVal
                    || hit.className) : 'nothing (off the screen)'));
        break;
      }
    }
  }
  window.scrollTo(0, 0);
  document.querySelectorAll('#room *').forEach(e => { if (e.scrollTop) e.scrollTop = 0; });
  return {looked: all.length, out: out};
}"""

CONTROLS = ("#room button, #room select, #room input:not([type=hidden]), #room summary, "
            "#room a[href], #room textarea")

# What stays on the screen while the page scrolls (position fixed or sticky):
# each such box at the page's top and at its end, and its height.
STAYS = """() => {
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    const style = getComputedStyle(e);
    if (!/fixed|sticky/.test(style.position) || !e.getClientRects().length) continue;
    const box = e.getBoundingClientRect();
    if (box.height < 1) continue;
    out.push({what: e.className || e.tagName, position: style.position,
              height: Math.round(box.height)});
  }
  return out;
}"""


# The two ways a phone's text size reaches the page (see the module's docstring).
EMULATIONS = ["default-font", "root-font"]

# The root's font size at 200% from the start of every page, before it is laid
# out (through the CSSOM: the site's CSP refuses a <style> the test would add).
ROOT_AT_200 = """(() => {
  const grow = () => document.documentElement
    && (document.documentElement.style.fontSize = '200%');
  if (!grow()) new MutationObserver((_, seen) => { if (grow()) seen.disconnect(); })
    .observe(document, {childList: true});
})();"""


def with_large_text(player, how: str):
    """The player's phone has text at 200% before any page opens, ``how`` says
    which way. (Changed on an open page, Chromium was seen to keep a container
    query's earlier answer, 1 load in 12; a phone's setting is there first.)"""
    if how == "default-font":
        # The session stays open: detached, its font sizes went with the next page.
        player.cdp = player.page.context.new_cdp_session(player.page)
        player.cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 32, "fixed": 29}})
    else:
        player.page.add_init_script(ROOT_AT_200)
    return player


def shoot(page: Page, screenshots: Path, label: str) -> None:
    """The top of the page and its end, at the text size set (a full-page or an
    element's screenshot would resize the view and drop the CDP font sizes)."""
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(screenshots / f"large-text-{label}-360x640-top.png"))
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    page.screenshot(path=str(screenshots / f"large-text-{label}-360x640-end.png"))
    page.evaluate("() => window.scrollTo(0, 0)")


def read_the_page(page: Page, label: str) -> dict:
    # Still at 200% (an element's or a whole page's screenshot was seen to drop
    # the DevTools font sizes: only the screen's own are taken here).
    expect(page.locator("html")).to_have_css("font-size", "32px")
    page.evaluate("() => document.fonts.ready")
    seen = {
        "scroll_width": page.evaluate("() => document.documentElement.scrollWidth"),
        "broken": page.evaluate(BROKEN_WORDS),
        "names": page.evaluate(NAMES_SHOWN, NAME_SELECTOR),
        "clipped": page.evaluate(CLIPPED),
        "cup": page.evaluate(CUP, PHONE["width"]),
        "overlaps": page.evaluate(OVERLAPS),
        "controls": page.evaluate(REACHABLE, [CONTROLS, "center"]),
        "names_reached": page.evaluate(REACHABLE, [NAME_SELECTOR, "center"]),
        "my_dice": page.evaluate(REACHABLE, ["[data-testid=my-dice] .die", "center"]),
        "seats_and_cup": page.evaluate(REACHABLE, [SEATS_AND_CUP, "center"]),
    }
    print(f"\n{label} 200% text:")
    for key, value in seen.items():
        print(f"  {key}: {value}")
    return seen


def assert_large_text_reads(seen: dict) -> None:
    assert seen["scroll_width"] <= PHONE["width"], seen["scroll_width"]
    assert not seen["broken"], ("words split over lines", seen["broken"])
    # Two lines at most; a name that needs more ends in an ellipsis. Each at
    # least three letters wide (a letter is about half the font size across).
    long = [n for n in seen["names"] if n["shown"] > 2 or n["laidOut"] > 2 and not n["ellipsis"]]
    assert not long, ("names on more than two lines", long)
    narrow = [n for n in seen["names"] if n["width"] < 1.5 * n["em"]]
    assert not narrow, ("names a letter or two wide", narrow)
    assert not seen["clipped"], ("cut off", seen["clipped"])
    if seen["cup"] is not None:
        assert seen["cup"]["inScreen"] and not seen["cup"]["outside"], ("the cup", seen["cup"])
    assert not seen["overlaps"], ("overlapping", seen["overlaps"])
    for key in ("controls", "names_reached", "my_dice", "seats_and_cup"):
        assert not seen[key]["out"], (key, seen[key]["out"])


@pytest.mark.timeout(240)
@pytest.mark.parametrize("how", EMULATIONS)
@pytest.mark.parametrize("lang", ["bn", "en"])
@pytest.mark.parametrize("table", list(TABLES))
def test_a_table_reads_whole_at_200_percent_text(players, screenshots, table, lang, how):
    game, seats, action = TABLES[table]
    player = with_large_text(players(NAMES[lang], lang, PHONE), how)
    page = at_my_turn(player, game, seats, action)
    expect(page.locator("html")).to_have_css("font-size", "32px")
    seen = read_the_page(page, f"{table} {lang} {how}")
    shoot(page, screenshots, f"{table}-{lang}-{how}")
    assert len(seen["names"]) >= seats, seen["names"]  # every seat's name was looked at
    # Every seat (and the cup) was looked at, whole.
    assert seen["seats_and_cup"]["looked"] == seats + (game == "liars_dice"), seen["seats_and_cup"]
    assert seen["controls"]["looked"] >= 2, seen["controls"]
    if game == "liars_dice":
        # Your own five dice, each whole on the screen and on top.
        assert seen["my_dice"]["looked"] == 5, seen["my_dice"]
    assert_large_text_reads(seen)
    expect(page.locator(action)).to_be_enabled()  # still the host's turn: nothing moved
    if game == "liars_dice":
        # The cup with a bid in it (whose, and how many of which face): the
        # host bids, the computers answer, and the host's turn comes round.
        # (Had a computer challenged, the cup shows the verdict: read as well.)
        before = version(page)
        page.locator(action).click()
        expect(page.locator("#room")).not_to_have_attribute("data-version", before)
        expect(page.locator(action)).to_be_enabled(timeout=30_000)
        cup = page.locator(".ld-table .cup").inner_text().replace("\n", " / ")
        seen = read_the_page(page, f"{table} {lang} {how}, the cup: {cup}")
        shoot(page, screenshots, f"{table}-{lang}-{how}-bid")
        assert seen["my_dice"]["looked"] >= 1, seen["my_dice"]
        assert_large_text_reads(seen)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("how", EMULATIONS)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_the_lobby_reads_whole_and_scrolls_above_its_start_bar_at_200_percent_text(
        players, screenshots, lang, how):
    """The host's lobby, first with seats still open (the Start bar then says
    why Start is greyed: its tallest), then with computers in them."""
    player = with_large_text(players(NAMES[lang], lang, PHONE), how)
    player.start()
    player.create_room("liars_dice", 6)
    page = player.page
    expect(page.locator("#room")).to_have_attribute("data-view", "lobby")
    expect(page.locator("html")).to_have_css("font-size", "32px")
    for state in ("open", "full"):
        if state == "full":
            page.get_by_test_id("fill-bots").click()
            expect(page.locator(".seat-list .seat-row [data-key^=rm-]")).to_have_count(5)
            expect(page.get_by_test_id("start")).to_be_enabled()
        else:
            expect(page.get_by_test_id("start-why")).to_be_visible()
        label = f"lobby-{state} {lang} {how}"
        stays = page.evaluate(STAYS)
        held = sum(s["height"] for s in stays)
        left_to_scroll = PHONE["height"] - held
        # Whole in view above (or below) whatever stays on the screen: every
        # control, heading, label and seat, brought to the top of the screen.
        parts = page.evaluate(REACHABLE, [
            CONTROLS + ", #room h2, #room label, #room legend, .seat-list .seat-row", "start"])
        print(f"\n{label}: stays on screen {stays}; left to scroll {left_to_scroll} px; "
              f"parts not reached {parts}")
        seen = read_the_page(page, label)
        shoot(page, screenshots, f"lobby-{state}-{lang}-{how}")
        page.evaluate("() => document.querySelector('.seat-list').scrollIntoView()")
        page.screenshot(path=str(screenshots / f"large-text-lobby-{state}-{lang}-{how}"
                                                 "-360x640-seats.png"))
        assert parts["looked"] >= 10, parts
        assert seen["names"], seen["names"]
        assert left_to_scroll >= PHONE["height"] / 2, (left_to_scroll, stays)
        assert not parts["out"], ("hidden under what stays on the screen", parts["out"])
        assert_large_text_reads(seen)
