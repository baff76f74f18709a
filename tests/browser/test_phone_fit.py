"""The last gaps of issue #14 on a 360x640 phone, measured.

- The hexagon (6-seat) Ludo board fills the phone's width, its tokens are at
  least 24 px (the tap target too) with digits one can read, and the whole
  board and the action are still on one screen, at 360x640 and at 320x568.
- The quick reactions fit the phone's width without scrolling sideways.
- The Snakes & Ladders seat strip shows the players' names, not "Ru…".

Every table is on a server whose turns do not run out (``play.calm_server``);
the test waits for the page's own state. Screenshots go to /tmp/shots-phone/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE
from tests.browser.play import calm_server, open_more
from tests.browser.test_one_screen import SMALL_PHONE, at_my_turn, box_of, fmt, inside

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


def token_sizes(page: Page) -> list[dict]:
    return page.evaluate(TOKEN_SIZES)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_the_hexagon_board_has_thumb_sized_tokens_on_one_phone_screen(players, shots, lang):
    player = players("Rumi" if lang == "bn" else "Tanvir", lang, PHONE)
    page = at_my_turn(player, "ludo", 6, "[data-testid=roll-button]")
    page.evaluate("() => window.scrollTo(0, 0)")
    board, roll = box_of(page, "[data-testid=ludo-board]"), box_of(page, "[data-testid=roll-button]")
    sizes = token_sizes(page)
    single = [s for s in sizes if not s["stacked"]]
    smallest = min(s["shape"] for s in single)
    print(f"\nludo-6 {lang} 360x640: board {fmt(board)}; roll {fmt(roll)}; "
          f"tokens {len(sizes)}, smallest {smallest:.1f} px, target "
          f"{min(s['target'] for s in single):.1f} px, digit {min(s['digit'] for s in single):.1f} px")
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

    # After a roll that lets a token move, the choices are on the same screen.
    before = page.locator("#room").get_attribute("data-version")
    page.get_by_test_id("roll-button").click()
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    for button in page.locator("[data-testid^=token-]").all():
        assert inside(button.bounding_box(), PHONE), "token choice below the fold"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]

    page.set_viewport_size(SMALL_PHONE)
    page.evaluate("() => window.scrollTo(0, 0)")
    small_board = box_of(page, "[data-testid=ludo-board]")
    small = min(s["shape"] for s in token_sizes(page) if not s["stacked"])
    print(f"ludo-6 {lang} 320x568: board {fmt(small_board)}; smallest token {small:.1f} px")
    page.screenshot(path=str(shots / f"ludo-6-{lang}-320x568.png"))
    assert inside(small_board, SMALL_PHONE), small_board
    assert small >= 0.75 * THUMB, small  # 18 px: the issue asks 24 px at 360 px, not here
    assert page.evaluate("() => document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
    page.set_viewport_size(PHONE)
