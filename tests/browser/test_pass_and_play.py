"""Pass and play on one 360x640 phone, in Bengali and English (issue #18).

- Liar's Dice: the host adds two players on this phone and a computer, starts,
  and plays several turns. Before each human turn the table is covered: the
  cover names the player to pass the phone to and holds the focus; the page
  has no dice of anyone under it; after the tap that player's dice appear (the
  ones the server dealt them, read from the move log) and the bid acts for
  them (the move log says their seat).
- Snakes: the host and a player on this phone; no cover (nothing is secret),
  the turn bar names whoever plays now, and a roll acts for them.

The server's turns never run out during a test (``play.calm_server``), so only
the pages and the computer's answers move the game.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.play import calm_server, version

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

SHOTS = Path("/tmp/shots-pnp")

TEXT = {
    "en": {"cover": "Pass the phone to {name}", "turn": "{name}'s turn"},
    "bn": {"cover": "ফোনটা {name}কে দিন", "turn": "{name}র পালা"},
}
# In Bengali a Latin name keeps the hyphen before its ending; a Bengali one
# ending in a vowel takes it joined ("মিতুর", "মিতুকে").
LATIN = {"bn": {"cover": "ফোনটা {name}-কে দিন", "turn": "{name}-এর পালা"}}


def said(lang: str, key: str, name: str) -> str:
    table = LATIN.get(lang, TEXT[lang]) if name.isascii() else TEXT[lang]
    return table[key].format(name=name)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("browser-pnp-db")) as running:
        yield running


def shoot(page: Page, label: str, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{label}.png"), full_page=full_page)


def events(server, code: str) -> list[dict]:
    with sqlite3.connect(server.database, timeout=20) as db:
        rows = db.execute(
            "SELECT m.event FROM rooms_movelog m JOIN rooms_game g ON g.id = m.game_id"
            " JOIN rooms_room r ON r.id = g.room_id WHERE r.code = ? ORDER BY m.seq",
            (code,),
        ).fetchall()
    return [json.loads(row[0]) for row in rows]


def add_on_this_phone(page: Page, name: str, seat: int) -> None:
    page.get_by_test_id("device-name").fill(name)
    page.get_by_test_id("add-device-player").click()
    row = page.locator(f".seat-row[data-seat='{seat}']")
    expect(row.get_by_test_id("device-tag")).to_be_visible()
    expect(row.locator(".seat-name")).to_have_text(name)


def tap_and_log(page: Page, server, code: str, button: str, kind: str) -> dict | None:
    """Tap ``button``, wait for the table's next version, and return the first
    ``kind`` event the move log gained (None if it gained none)."""
    logged_before = len([e for e in events(server, code) if e["type"] == kind])
    before = version(page)
    page.get_by_test_id(button).click()
    page.wait_for_function("v => document.querySelector('#room').dataset.version !== v",
                           arg=before)
    logged = [e for e in events(server, code) if e["type"] == kind]
    return logged[logged_before] if len(logged) > logged_before else None


def turn_seat(page: Page) -> int | None:
    return page.evaluate(
        "() => { const g = KG.state.snap.game; return g && g.turn ? g.turn.seat : null; }")


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_liars_dice_on_one_phone_covers_each_players_dice_until_their_tap(players, server, lang):
    host = players("Tanvir", lang).start()
    page = host.page
    code = host.create_room("liars_dice", 4)
    names = {0: "Tanvir", 1: "Rina", 2: "মিতু"}
    add_on_this_phone(page, names[1], 1)
    add_on_this_phone(page, names[2], 2)
    shoot(page, f"lobby-{lang}", full_page=True)
    # The host's Start stays on the phone's screen, however long the lobby
    # (a family drill found it a screen and a half down).
    page.evaluate("window.scrollTo(0, 0)")
    expect(page.get_by_test_id("start")).to_be_in_viewport()
    shoot(page, f"lobby-top-{lang}")
    page.locator("[data-key=bot-3]").click()
    expect(page.locator(".seat-row[data-seat='3'] .conn.bot")).to_be_visible()
    page.get_by_test_id("start").click()
    expect(page.locator("#room")).to_have_attribute("data-view", "table")

    cover = page.get_by_test_id("pass-cover")
    shown: list[int] = []
    for turn_number in range(5):
        expect(cover).to_be_visible()
        seat = turn_seat(page)
        assert seat in names, seat
        expect(page.get_by_test_id("cover-title")).to_have_text(
            said(lang, "cover", names[seat]))
        ready = page.get_by_test_id("cover-ready")
        expect(ready).to_be_focused()
        # The clock runs while the phone is handed over, and the cover says so.
        expect(page.get_by_test_id("cover-clock")).to_have_text(re.compile(r"[0-9০-৯]"))
        # Under the cover the page holds no one's dice at all.
        assert page.evaluate("() => KG.state.snap.game.view.my_dice") is None
        expect(page.get_by_test_id("my-dice")).to_have_count(0)
        if turn_number == 0:
            shoot(page, f"cover-{lang}")
        else:  # how the last bid went is not hidden from the next player
            expect(page.get_by_test_id("cover-recent")).to_be_visible()
        if turn_number == 2:
            shoot(page, f"cover-later-{lang}")
        ready.click()
        expect(cover).to_be_hidden()
        dealt = [e for e in events(server, code) if e["type"] == "round"][-1]["dice"][str(seat)]
        expect(page.get_by_test_id("my-dice").locator(".die")).to_have_count(len(dealt))
        assert page.evaluate("() => KG.state.snap.game.view.my_dice") == dealt
        expect(page.get_by_test_id("turn-text")).to_have_text(
            said(lang, "turn", names[seat]))
        if turn_number == 0:
            shoot(page, f"after-tap-{lang}")
        if turn_number == 4:
            challenge_and_see_the_cups(page, server, code, seat)
            # The next round's line names nobody's dice: the log and the
            # cover's last lines outlive whose view the phone showed.
            expect(page.locator("#event-log li").last).to_be_attached()
            assert not re.search(r"Your dice|আপনার ডাইস", page.locator("#event-log").inner_text())
            break
        bid = tap_and_log(page, server, code, "bid-button", "bid")
        assert bid is not None and bid["seat"] == seat
        shown.append(seat)
    assert len(set(shown)) >= 2, shown  # the phone went round, not to one player


MOMENT_UNCOVERED = """() => {
  const cover = document.querySelector('[data-testid=pass-cover]');
  return !(KG.games.liars_dice.momentUntil() > Date.now() && !cover.hidden);
}"""


GONE_ON = """s => {
  const g = KG.state.snap.game, c = document.querySelector('[data-testid=pass-cover]');
  return !c.hidden || (g.turn && g.turn.seat === s && KG.state.snap.you.seat === s);
}"""


def challenge_and_see_the_cups(page: Page, server, code: str, seat: int) -> None:
    """A challenge from the phone: every cup shows on the table, and no cover
    hides that moment; then the phone goes on (covered, or its own turn)."""
    before = version(page)
    page.get_by_test_id("challenge-button").click()
    page.wait_for_function("v => document.querySelector('#room').dataset.version !== v",
                           arg=before)
    challenge = [e for e in events(server, code) if e["type"] == "challenge"][-1]
    assert challenge["seat"] == seat
    expect(page.get_by_test_id("reveal")).to_be_visible()
    assert page.evaluate(MOMENT_UNCOVERED)
    # After the moment, the next player on the phone gets the cover (or, when
    # the challenger opens the next round, their own new cup shows at once).
    page.wait_for_function(GONE_ON, arg=seat)
    assert page.evaluate(MOMENT_UNCOVERED)


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_snakes_on_one_phone_names_whoever_plays_now(players, server, lang):
    host = players("Tanvir", lang).start()
    page = host.page
    code = host.create_room("snakes", 2)
    names = {0: "Tanvir", 1: "Rina"}
    add_on_this_phone(page, names[1], 1)
    page.get_by_test_id("start").click()
    expect(page.locator("#room")).to_have_attribute("data-view", "table")
    seen = set()
    for step in range(8):
        if page.locator("#room").get_attribute("data-status") != "playing" or seen == {0, 1}:
            break
        seat = turn_seat(page)
        expect(page.get_by_test_id("turn-text")).to_have_text(
            said(lang, "turn", names[seat]))
        expect(page.get_by_test_id("pass-cover")).to_be_hidden()
        if step == 0:
            shoot(page, f"snakes-{lang}")
        roll = tap_and_log(page, server, code, "roll-button", "roll")
        assert roll is not None and roll["seat"] == seat  # the roll acted for the named player
        seen.add(seat)
    assert seen == {0, 1}
