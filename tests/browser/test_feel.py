"""Game feel in a real browser: the sound switch, the rolling die, reduced
motion, and the "your turn" cue in a background tab's title.

- the sound switch is off on a first visit, one tap turns it on (aria-pressed),
  a reload remembers it, and with it on a roll asks for its sound;
- a roll draws its final face at once and tumbles over it, then settles;
- with reduced motion no die tumbles and no moment or walk is ever drawn;
- a hidden tab whose turn comes shows "● <Your turn> — <Khelaghor>" in its title,
  in Bengali and English, and the title comes back when the tab is visible.

Every table is on a ``calm_server``: no turn runs out while a test looks, so
only what the pages do (and the computers' answers) moves the game.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.play import HIDE, calm_server, seat_two_and_start, start_a_race, version

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

SHOTS = Path("/tmp/shots-feel")
ROLLING = re.compile(r"\bdie-rolling\b")
# A phone's vibration motor, counted (Chromium on a desktop has none to feel).
COUNT_VIBRATIONS = """
window.__vibrations = 0;
navigator.vibrate = function () { window.__vibrations += 1; return true; };
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with calm_server(tmp_path_factory.mktemp("browser-feel-db")) as running:
        yield running


def shoot(player, screenshots: Path, label: str) -> None:
    """The repository's screenshots, copied where the session's reviewer looks."""
    player.shoot(screenshots, label)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size in ("360x640", "1280x800"):
        name = f"{label}-{player.lang}-{size}.png"
        shutil.copy(screenshots / name, SHOTS / name)


def roll_once(page: Page) -> None:
    """Tap Roll and wait for the table to move on."""
    before = version(page)
    page.get_by_test_id("roll-button").click()
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)


def my_turn(page: Page) -> bool:
    return page.locator("[data-testid=roll-button]:enabled").count() > 0


def wait_for_my_turn(page: Page) -> None:
    expect(page.locator("[data-testid=roll-button]:enabled")).to_have_count(1)


# Records, from the moment it is installed, whether any element ever carried one of
# the animation marks: a tumbling die, its passing faces, a moment over the board.
WATCH_ANIMATION_MARKS = """() => {
    window.__marks = [];
    const marks = ['.die-rolling', '.pips-tumble', '.kg-moment'];
    const look = node => {
        if (!(node instanceof Element)) return;
        for (const m of marks) {
            if (node.matches(m) || node.querySelector(m)) window.__marks.push(m);
        }
        if (node.matches('.kg-moment')) window.__momentText = node.textContent;
    };
    new MutationObserver(list => list.forEach(r => {
        r.addedNodes.forEach(look);
        if (r.type === 'attributes') look(r.target);
    })).observe(document.body, {subtree: true, childList: true, attributes: true,
                                attributeFilter: ['class']});
}"""


@pytest.mark.timeout(300)
def test_sound_is_off_at_first_one_tap_turns_it_on_and_a_reload_remembers(players, screenshots):
    rumi = players("Rumi", "bn", PHONE)
    tanvir = players("Tanvir", "en", DESKTOP)
    for player in (rumi, tanvir):
        player.context.add_init_script(COUNT_VIBRATIONS)
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    for player, name in ((rumi, "শব্দ"), (tanvir, "Sound")):
        toggle = player.page.get_by_test_id("sound-toggle")
        expect(toggle).to_have_attribute("aria-pressed", "false")
        expect(toggle).to_have_accessible_name(name)
        assert player.page.evaluate("localStorage.getItem('kg-sound')") is None
        box = toggle.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, box
        width = player.page.viewport_size["width"]
        assert player.page.evaluate("document.documentElement.scrollWidth") <= width
    shoot(rumi, screenshots, "feel-sound-off")
    shoot(tanvir, screenshots, "feel-sound-off")

    page = rumi.page
    page.get_by_test_id("sound-toggle").click()
    expect(page.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("localStorage.getItem('kg-sound')") == "on"
    # The tap itself plays the your-turn chime, so the player hears what they turned on.
    assert "turn" in page.evaluate("KG.feel.played")
    shoot(rumi, screenshots, "feel-sound-on")
    shoot(tanvir, screenshots, "feel-sound-on-elsewhere")

    page.reload()
    rumi.wait_online()
    expect(page.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "true")
    # The other browser never tapped: still off there.
    expect(tanvir.page.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "false")

    # With sound on, a roll asks for the dice's rattle; with it off, nothing is played.
    wait_for_my_turn(page)
    while my_turn(page):
        roll_once(page)
    page.wait_for_function("() => KG.feel.played.indexOf('roll') >= 0")
    # When the turn comes back: the chime, and the phone buzzes (sound on only).
    chimes = page.evaluate("KG.feel.played.filter(s => s === 'turn').length")
    wait_for_my_turn(tanvir.page)
    while my_turn(tanvir.page):
        roll_once(tanvir.page)
    wait_for_my_turn(page)
    page.wait_for_function(
        "n => KG.feel.played.filter(s => s === 'turn').length > n", arg=chimes)
    assert page.evaluate("window.__vibrations") >= 1
    assert tanvir.page.evaluate("KG.feel.played") == []
    assert tanvir.page.evaluate("window.__vibrations") == 0

    # The square numbers are drawn over the snakes and ladders, with a halo.
    layers = page.evaluate(
        "() => [...document.querySelector('[data-testid=snakes-board]').children]"
        ".map(n => n.getAttribute('class'))")
    assert layers.index("square-numbers") > layers.index("jumps"), layers
    assert page.locator(".square-numbers text").count() == 100
    halo = page.locator(".square-numbers text").first.evaluate(
        "t => [getComputedStyle(t).paintOrder, getComputedStyle(t).stroke]")
    assert halo[0].startswith("stroke") and halo[1] != "none", halo

    # And one more tap turns it off again, remembered too.
    page.get_by_test_id("sound-toggle").click()
    expect(page.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("localStorage.getItem('kg-sound')") == "off"


@pytest.mark.timeout(300)
def test_a_roll_draws_its_face_at_once_and_the_die_tumbles_over_it(players, screenshots):
    rumi = players("Rumi", "bn", PHONE, reduced_motion="no-preference")
    tanvir = players("Tanvir", "en", DESKTOP, reduced_motion="no-preference")
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    page = rumi.page
    expect(page.locator("html")).to_have_attribute("data-motion", "full")
    # Slow every animation tenfold (3.6 s for the tumble) so the test and the
    # screenshot see it mid-roll on any machine; the timers are not slowed.
    cdp = rumi.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 0.1})
    wait_for_my_turn(page)
    rolled_before = page.evaluate("KG.rolled")
    roll_once(page)
    die = page.locator("[data-testid=last-roll] svg.die")
    expect(die).to_have_class(ROLLING)
    assert page.evaluate("KG.rolled") == rolled_before + 1
    # The final face is already there, and said: nothing waits for the animation.
    value = page.evaluate("KG.state.snap.game.view.last_roll")
    expect(die.locator(".pips-final circle")).to_have_count(value)
    label = die.get_attribute("aria-label")
    assert label and "০১২৩৪৫৬৭৮৯"[value] in label, label
    shoot(rumi, screenshots, "feel-die-rolling")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 1})
    # Then it settles on that face, the passing faces gone.
    expect(die).not_to_have_class(ROLLING, timeout=10_000)
    expect(die.locator(".pips-tumble")).to_have_count(0)
    expect(die.locator(".pips-final circle")).to_have_count(value)
    # A redraw of the same update does not roll the die again.
    page.evaluate("() => KG.render()")
    expect(die).not_to_have_class(ROLLING)
    assert page.evaluate("KG.rolled") == rolled_before + 1
    # The other page saw Rumi's roll tumble as well.
    tanvir.page.wait_for_function("() => KG.rolled >= 1")


@pytest.mark.timeout(300)
def test_with_reduced_motion_no_animation_is_ever_drawn(players, screenshots):
    rumi = players("Rumi", "bn", PHONE, reduced_motion="reduce")
    tanvir = players("Tanvir", "en", DESKTOP, reduced_motion="reduce")
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    for player in (rumi, tanvir):
        expect(player.page.locator("html")).to_have_attribute("data-motion", "reduce")
        player.page.evaluate(WATCH_ANIMATION_MARKS)
    # Both roll until a token has come onto the board and a few rolls were drawn.
    rolls = 0
    for _ in range(300):
        squares = rumi.page.evaluate("KG.state.snap.game.view.squares")
        if any(s > 0 for s in squares) and rolls >= 4:
            break
        for page in (rumi.page, tanvir.page):
            if my_turn(page):
                roll_once(page)
                rolls += 1
    else:
        pytest.fail("no token came onto the board")
    for player in (rumi, tanvir):
        page = player.page
        assert page.evaluate("window.__marks") == []
        assert page.evaluate("KG.rolled") == 0 and page.evaluate("KG.animated") == 0
        expect(page.locator(".die-rolling, .pips-tumble, .kg-moment")).to_have_count(0)
        # The die shows its face, still and whole.
        expect(page.locator("[data-testid=last-roll] svg.die circle")).not_to_have_count(0)
    shoot(rumi, screenshots, "feel-reduced-motion")


@pytest.mark.timeout(300)
def test_a_hidden_tab_shows_your_turn_in_its_title_until_it_is_visible(players, screenshots):
    tanvir = players("Tanvir", "en", DESKTOP)
    rumi = players("Rumi", "bn", PHONE)
    seat_two_and_start(tanvir, rumi, "snakes", 2)  # Tanvir seat 0 rolls first
    cues = {"bn": "● আপনার পালা — খেলাঘর", "en": "● Your turn — Khelaghor"}
    plain = {p.lang: p.page.title() for p in (tanvir, rumi)}
    for title in plain.values():
        assert not title.startswith("●")

    # Tanvir rolls until the turn passes (a 6 rolls again) while Rumi's tab is hidden.
    for mover, waiter in ((tanvir, rumi), (rumi, tanvir), (tanvir, rumi)):
        waiter.page.evaluate(HIDE, True)
        wait_for_my_turn(mover.page)
        while my_turn(mover.page):
            roll_once(mover.page)
        wait_for_my_turn(waiter.page)
        expect(waiter.page).to_have_title(cues[waiter.lang])
        assert waiter.page.evaluate("document.documentElement.dataset.turnCue") == "on"
        # The player who is looking gets no cue.
        expect(mover.page).to_have_title(plain[mover.lang])
        # Back to the tab: the plain title again, at once.
        waiter.page.evaluate(HIDE, False)
        expect(waiter.page).to_have_title(plain[waiter.lang])
    # A visible tab at its turn keeps its plain title.
    wait_for_my_turn(rumi.page)
    expect(rumi.page).to_have_title(plain["bn"])
    shoot(rumi, screenshots, "feel-your-turn")


@pytest.mark.timeout(300)
def test_the_first_to_reach_100_gets_the_winners_moment(players, screenshots):
    rumi = players("Rumi", "bn", PHONE, reduced_motion="no-preference")
    tanvir = players("Tanvir", "en", DESKTOP, reduced_motion="no-preference")
    rumi.start()
    tanvir.start()
    code = rumi.create_room("snakes", 2)
    tanvir.join_by_typing(code)
    start_a_race(rumi, tanvir)  # the first 6 wins
    for player in (rumi, tanvir):
        player.page.evaluate(WATCH_ANIMATION_MARKS)
    seated = {0: rumi, 1: tanvir}
    for _ in range(200):
        if rumi.page.locator("#room").get_attribute("data-status") == "finished":
            break
        mover = seated[rumi.page.evaluate("KG.state.snap.game.turn.seat")]
        wait_for_my_turn(mover.page)
        roll_once(mover.page)
        expect(rumi.page.locator("#room")).to_have_attribute("data-version", version(mover.page))
    else:
        pytest.fail("nobody rolled a 6")
    winner = rumi.page.evaluate("KG.state.snap.game.placings[0]")
    name = ["Rumi", "Tanvir"][winner]
    for player in (rumi, tanvir):
        moment = player.page.locator(".kg-moment-win")
        # It pops up over the board once the token has climbed, then goes.
        player.page.wait_for_function("() => window.__marks.indexOf('.kg-moment') >= 0")
        if player is rumi and moment.count():
            shoot(rumi, screenshots, "feel-winner-moment")
        expect(moment).to_have_count(0, timeout=5_000)
        assert player.page.locator("[data-testid=placings] li").count() == 2
    said = {"bn": f"{name} জিতেছেন!", "en": f"{name} wins!"}
    # The words of the moment (said by the page as it came) are the winner's.
    for player in (rumi, tanvir):
        assert player.page.evaluate("window.__momentText") == "🏆 " + said[player.lang]
