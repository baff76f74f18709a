"""The table's own controls and messages, in a real browser against a real daphne.

- a player reports another seat from the table's Report button, by keyboard, and
  the report is in the database;
- a moderator renames, removes and finally closes: every page says so in words,
  the removed player is offered nothing more, the closed room shows its reason;
- with reduced motion the moves jump instead of walking, and a quick reaction
  floats over the sender's seat in the other browser;
- the countdown is right on a phone whose clock is an hour fast (server_time);
- a computer's turn shows a turning ring, not a red "1";
- a connected page pings every 25 seconds;
- the host sets the party pace on a phone, and the server keeps it.

Every table here is on a server whose turns do not run out during a test
(``play.calm_server``): the game moves only when a page acts. What a page said
is read from its event log ("What happened"), which keeps the sentences, not
from the live region, which the next sentence replaces. (A timeout said in
words needs the real clock: test_turn_timer.py.)
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.play import (
    CALM_TURN_SECONDS,
    calm_server,
    open_more,
    seat_two,
    seat_two_and_start,
    version,
)
from tests.servers import run_manage

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

MODERATOR = ("moderator", "a-long-test-password-41")
ADMIN_PAGE_MS = 20_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """This module's own server (it replaces the shared one for these tests):
    no turn runs out while a test reads the page."""
    with calm_server(tmp_path_factory.mktemp("browser-calm-db")) as running:
        yield running


def log_of(page: Page):
    """The page's event log: every sentence the page said, kept (the live
    region #live holds only the latest ones)."""
    return page.locator("#event-log")


def query(server, sql: str, *params):
    with sqlite3.connect(server.database, timeout=20) as db:
        return db.execute(sql, params).fetchall()


def room_id(server, code: str) -> int:
    return query(server, "SELECT id FROM rooms_room WHERE code = ? ORDER BY id DESC", code)[0][0]


def assert_thumb_sized(locator) -> None:
    for control in locator.all():
        box = control.bounding_box()
        assert box is not None and box["height"] >= 44, control.evaluate("n => n.outerHTML")


@pytest.mark.timeout(300)
def test_a_player_reports_another_seat_by_keyboard_and_the_report_is_kept(
    players, server, screenshots
):
    rumi = players("Rumi", "bn", PHONE)
    tanvir = players("Tanvir", "en", DESKTOP)
    code = seat_two_and_start(rumi, tanvir)

    # The Bengali table has its রিপোর্ট button too, in the "More" sheet on a
    # phone; it opens and Escape closes it.
    bn = rumi.page
    open_more(bn)
    expect(bn.get_by_test_id("report-button")).to_have_text("রিপোর্ট")
    bn.get_by_test_id("report-button").click()
    expect(bn.locator(".report-form")).to_be_visible()
    expect(bn.locator("#report-seat option")).to_have_text(["নির্দিষ্ট কেউ নয়", "Tanvir"])
    assert bn.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    rumi.shoot(screenshots, "report-dialog")
    bn.keyboard.press("Escape")
    expect(bn.locator(".report-form")).to_be_hidden()
    expect(bn.get_by_test_id("report-button")).to_be_focused()

    page = tanvir.page
    summary = page.get_by_test_id("report-button")
    expect(summary).to_have_text("Report")
    assert_thumb_sized(summary)
    summary.focus()
    page.keyboard.press("Enter")
    form = page.locator(".report-form")
    expect(form).to_be_visible()
    first = page.locator("input[name=reason][value=abusive_name]")
    expect(first).to_be_focused()
    page.keyboard.press("Space")
    expect(first).to_be_checked()
    assert_thumb_sized(form.locator("label:has(input[type=radio]), select, textarea, button"))
    # Only the other people at the table are offered, by name; not yourself, not computers.
    expect(page.locator("#report-seat option")).to_have_text(["No one in particular", "Rumi"])
    page.locator("#report-seat").focus()
    page.keyboard.press("ArrowDown")
    expect(page.locator("#report-seat")).to_have_value("0")
    page.locator("#report-note").focus()
    page.keyboard.type("Rude name in the lobby")
    tanvir.shoot(screenshots, "report-dialog")
    page.locator(".report-form button[type=submit]").focus()
    page.keyboard.press("Enter")

    status = page.get_by_test_id("report-status")
    expect(status).to_have_text("Thank you: a moderator will look.")
    expect(log_of(page)).to_contain_text("Thank you: a moderator will look.")
    expect(form).to_be_hidden()
    expect(summary).to_be_focused()
    tanvir.shoot(screenshots, "report-sent")

    rows = query(
        server,
        "SELECT r.seat, r.reason, r.note FROM rooms_report r JOIN rooms_room m ON m.id = r.room_id"
        " WHERE m.code = ?",
        code,
    )
    assert rows == [(0, "abusive_name", "Rude name in the lobby")]


@pytest.fixture(scope="module")
def moderator(server):
    try:
        run_manage(
            "createsuperuser", "--noinput", "--username", MODERATOR[0],
            "--email", "moderator@example.org",
            env={**server.env, "DJANGO_SUPERUSER_PASSWORD": MODERATOR[1]},
        )
    except RuntimeError as exc:
        if "already taken" not in str(exc):
            raise
    return MODERATOR


def moderate(browser, server, moderator, room: int, act: str, reason: str, seat=None) -> None:
    """What a moderator does in the admin: the action's page, a reason, Confirm."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.base_url + "/admin/login/?next=/admin/")
        page.fill("#id_username", moderator[0])
        page.fill("#id_password", moderator[1])
        page.locator("input[type=submit]").click()
        # Each of these waits for a whole admin page after a POST (password
        # hashing, the action, a redirect), which took over expect's default
        # 5 s on a loaded CI machine; the players' pages allow 20 s too.
        expect(page.locator("#user-tools")).to_be_visible(timeout=ADMIN_PAGE_MS)
        url = f"/admin/rooms/room/{room}/moderate/{act}/" + ("" if seat is None else f"{seat}/")
        page.goto(server.base_url + url)
        page.fill("#id_reason", reason)
        page.locator("input[type=submit]").click()
        expect(page.locator(".messagelist .success")).to_be_visible(timeout=ADMIN_PAGE_MS)
    finally:
        context.close()


@pytest.mark.timeout(300)
def test_a_moderators_rename_remove_and_close_are_said_in_words_on_every_page(
    players, browser, server, moderator, screenshots
):
    rumi = players("Rumi", "bn", PHONE)
    tanvir = players("Tanvir", "en", DESKTOP)
    code = seat_two_and_start(rumi, tanvir)
    room = room_id(server, code)

    moderate(browser, server, moderator, room, "rename", "Abusive name", seat=1)
    expect(log_of(tanvir.page)).to_contain_text("A moderator changed your name to খেলোয়াড় ২")
    expect(log_of(rumi.page)).to_contain_text("একজন মডারেটর আসন ২-এর নাম বদলে খেলোয়াড় ২ রেখেছেন")
    expect(rumi.page.locator(".table-seat[data-seat='1'] .seat-name")).to_have_text("খেলোয়াড় ২")

    moderate(browser, server, moderator, room, "remove", "Spamming the table", seat=1)
    page = tanvir.page
    banner = page.get_by_test_id("removed-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("A moderator removed you from this seat")
    expect(log_of(page)).to_contain_text("A moderator removed you from this seat")
    expect(page.locator("#room")).to_have_attribute("data-you-seat", "")
    # Nothing to do any more: no roll, no reactions, no seat of one's own.
    expect(page.locator("[data-testid=roll-button]")).to_have_count(0)
    expect(page.locator(".reaction-bar")).to_have_count(0)
    expect(log_of(rumi.page)).to_contain_text(
        "একজন মডারেটর আসন ২-এর খেলোয়াড়কে সরিয়ে দিয়েছেন; এখন কম্পিউটার খেলছে"
    )
    tanvir.shoot(screenshots, "removed")

    moderate(browser, server, moderator, room, "close", "Closed for a test")
    for player, words in (
        (tanvir, "The room was closed: Closed for a test"),
        (rumi, "রুম বন্ধ হয়ে গেছে: Closed for a test"),
    ):
        p = player.page
        expect(p.locator("#room")).to_have_attribute("data-view", "closed")
        expect(p.get_by_test_id("closed-reason")).to_contain_text("Closed for a test")
        # The closed view has no event log; the live region is where the words
        # are, and nothing at a closed table can replace them.
        expect(p.locator("#live")).to_contain_text(words)
        expect(p.locator("#room button:visible")).to_have_count(0)
        player.shoot(screenshots, "closed")


@pytest.mark.timeout(300)
def test_reduced_motion_skips_the_walk_and_a_reaction_floats_over_the_senders_seat(players):
    rumi = players("Rumi", "bn", PHONE, reduced_motion="reduce")
    tanvir = players("Tanvir", "en", DESKTOP, reduced_motion="no-preference")
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    calm, busy = rumi.page, tanvir.page
    expect(calm.locator("html")).to_have_attribute("data-motion", "reduce")
    expect(busy.locator("html")).to_have_attribute("data-motion", "full")

    # Both roll until tokens have moved a few times (a token needs a 6 to come on).
    for _ in range(300):
        if busy.evaluate("KG.animated") >= 3:
            break
        for page in (calm, busy):
            roll = page.locator("[data-testid=roll-button]:enabled")
            if roll.count():
                before = version(page)
                roll.click()
                expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    else:
        pytest.fail("no token moved")
    # The same moves, drawn as jumps on the calm page and as walks on the other.
    expect(calm.locator("#room")).to_have_attribute("data-version", version(busy))
    assert max(calm.evaluate("KG.state.snap.game.view.squares")) > 0
    assert calm.evaluate("KG.animated") == 0
    running = calm.evaluate(
        "document.getAnimations().filter(a => a.playState === 'running'"
        " && a.effect.getComputedTiming().duration > 1).length"
    )
    assert running == 0

    # A reaction from each side shows over the sender's seat on the other page,
    # still readable (not faded out) where motion is reduced, and is said in words.
    for sender, receiver, seat, said in (
        (tanvir, rumi, 1, "Tanvir: সাবাশ!"),
        (rumi, tanvir, 0, "Rumi: Bravo!"),
    ):
        open_more(sender.page)  # reactions are behind "More" on a phone
        sender.page.locator("[data-key=react-clap]").click()
        bubble = bubble_over(receiver.page, seat)
        assert "👏" in bubble["text"], bubble
        assert bubble["width"] > 0 and bubble["height"] > 0, bubble
        assert bubble["seat_left"] <= bubble["centre"] <= bubble["seat_right"], bubble
        assert bubble["top"] < bubble["seat_top"], "the bubble floats above the seat"
        if receiver is rumi:
            assert float(bubble["opacity"]) == 1.0, bubble
        expect(log_of(receiver.page).locator("li", has_text=said)).to_have_count(1)


# The bubble is measured in the same instant it is found: the page removes it
# after 2.7 s, so reading it in several steps could find it gone.
BUBBLE_OVER_SEAT = """seat => {
    const box = document.querySelector(`.table-seat[data-seat='${seat}']`);
    const bubble = box && box.querySelector(".reaction-float");
    if (!bubble) return null;
    const b = bubble.getBoundingClientRect(), s = box.getBoundingClientRect();
    return {text: bubble.textContent, width: b.width, height: b.height,
            centre: b.x + b.width / 2, top: b.y,
            seat_left: s.x, seat_right: s.x + s.width, seat_top: s.y,
            opacity: getComputedStyle(bubble).opacity};
}"""


def bubble_over(page: Page, seat: int) -> dict:
    """Where the reaction bubble over ``seat`` is drawn, once it shows."""
    return page.wait_for_function(BUBBLE_OVER_SEAT, arg=seat).json_value()


@pytest.mark.timeout(300)
def test_the_countdown_counts_right_on_a_phone_whose_clock_is_an_hour_fast(players):
    rumi = players("Rumi", "bn", PHONE)
    rumi.context.add_init_script(
        "(() => { const real = Date.now; Date.now = () => real() + 3600 * 1000; })();"
    )
    rumi.start()
    rumi.create_room("snakes", 2)
    page = rumi.page
    page.get_by_test_id("fill-bots").click()
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("roll-button")).to_be_enabled()
    ring = page.locator(".timer-ring")
    turn_seconds = page.evaluate("KG.state.snap.room.turn_seconds")
    assert turn_seconds == CALM_TURN_SECONDS
    # Trusting the phone's clock would leave nothing at all: the turn would
    # have ended half an hour ago. Counted on the server's clock, the turn
    # has only just begun.
    left = float(ring.get_attribute("data-left"))
    assert turn_seconds - 300 < left <= turn_seconds, left
    label = ring.locator("text").text_content()
    assert label and label != "০", label
    # While nothing happens the ring costs nothing but a new number each
    # second: the page is not rewritten four times a second (a cheap-phone
    # drill found the old tick kept the main thread 77% busy).
    page.evaluate("""() => {
      const ring = document.querySelector('.timer-ring');
      const text = ring.querySelector('text');
      let last = text.textContent;
      window.ringChanges = {labels: 0, all: 0};  // new numbers shown; every change made
      new MutationObserver(records => {
        window.ringChanges.all += records.length;
        if (text.textContent !== last) { last = text.textContent; window.ringChanges.labels += 1; }
      }).observe(ring, {attributes: true, subtree: true, characterData: true, childList: true});
    }""")
    drained = "parseFloat(getComputedStyle(document.querySelector('.ring-fg')).strokeDashoffset)"
    before = page.evaluate(drained)
    page.wait_for_function("() => window.ringChanges.labels >= 3", timeout=10_000)
    changes = page.evaluate("window.ringChanges")
    assert changes["all"] <= 3 * changes["labels"] + 2, changes
    assert page.evaluate(drained) > before  # and the ring still drains, by itself


class HoldAfterTheComputersTurnBegins:
    """The page's room socket, untouched until an update hands the turn to a
    computer; what the server sends after it waits until ``release``: the
    page shows the computer's turn for as long as the test reads it. Once
    released, nothing is held again (a computer's 6 hands it the turn again)."""

    def __init__(self) -> None:
        self.page_side = None
        self.held: list = []
        self.holding = False
        self.released = False

    def __call__(self, page_side) -> None:
        self.page_side = page_side
        server_side = page_side.connect_to_server()
        page_side.on_message(server_side.send)

        def forward(message) -> None:
            if self.holding:
                self.held.append(message)
                return
            page_side.send(message)
            data = json.loads(message) if isinstance(message, str) else {}
            turn = ((data.get("game") or data.get("snapshot", {}).get("game") or {})
                    .get("turn") or {}) if data.get("type") == "update" else {}
            if turn.get("by") == "bot" and not self.released:
                self.holding = True

        server_side.on_message(forward)

    def release(self) -> None:
        self.holding, self.released = False, True
        for message in self.held:
            self.page_side.send(message)
        self.held = []


@pytest.mark.timeout(120)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_a_computers_turn_shows_it_thinking_not_a_countdown(players, screenshots, lang):
    """A computer answers in about a second: its ring counted "১" in red, as
    if a player were about to run out of time (a phone drill)."""
    rumi = players("Rumi", lang, PHONE)
    link = HoldAfterTheComputersTurnBegins()
    rumi.page.route_web_socket(re.compile(r"/ws/rooms/"), link)
    rumi.start()
    rumi.create_room("snakes", 2)
    page = rumi.page
    page.get_by_test_id("fill-bots").click()
    page.get_by_test_id("start").click()
    ring = page.locator(".timer-ring")
    expect(page.get_by_test_id("roll-button")).to_be_enabled()
    expect(ring).not_to_have_class(re.compile("thinking"))  # her own turn counts down
    assert ring.locator("text").text_content()
    # She rolls until the turn passes (a 6 rolls again); the update that
    # gives the turn to the computer has come, and its move waits.
    while not link.holding:
        before = version(page)
        page.get_by_test_id("roll-button").click()
        expect(page.locator("#room")).not_to_have_attribute("data-version", before)
        if not link.holding:
            expect(page.get_by_test_id("roll-button")).to_be_enabled()
    expect(ring).to_have_class(re.compile("thinking"))
    expect(ring).to_have_attribute("aria-label", "ভাবছে" if lang == "bn" else "Thinking")
    assert ring.locator("text").text_content() == ""
    expect(ring).not_to_have_class(re.compile("low"))
    rumi.shoot(screenshots, "computer-thinking")
    link.release()
    expect(page.get_by_test_id("roll-button")).to_be_enabled()  # the computer moved
    expect(ring).not_to_have_class(re.compile("thinking"))
    assert not rumi.errors


WATCH_SOCKETS = """(() => {
    const log = (window.__ws = { open: [], sent: [], pongs: 0 });
    const Native = window.WebSocket;
    const send = Native.prototype.send;
    Native.prototype.send = function (data) {
        log.sent.push([Date.now(), data]);
        return send.call(this, data);
    };
    window.WebSocket = function (url, protocols) {
        const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
        ws.addEventListener("open", () => log.open.push(Date.now()));
        ws.addEventListener("message", (ev) => {
            let type = null;
            try { type = JSON.parse(ev.data).type; } catch (e) { /* not JSON */ }
            if (type === "pong") log.pongs += 1;
        });
        return ws;
    };
    window.WebSocket.prototype = Native.prototype;
    Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();"""


@pytest.mark.timeout(120)
def test_a_connected_page_pings_every_25_seconds_and_stays_connected(players):
    rumi = players("Rumi", "en", PHONE)
    rumi.context.add_init_script(WATCH_SOCKETS)
    page = rumi.page
    page.clock.install()  # the page's timers run on a clock the test can move on
    rumi.start()
    rumi.create_room("ludo", 2)
    opened = page.evaluate("__ws.open[__ws.open.length - 1]")
    # One ping times the link as the snapshot arrives, then one every 25 s.
    page.wait_for_function("() => __ws.pongs >= 1")
    page.clock.run_for(26_000)
    page.wait_for_function("() => __ws.pongs >= 2")
    page.clock.run_for(25_000)
    page.wait_for_function("() => __ws.pongs >= 3")
    pings = page.evaluate(
        "__ws.sent.filter(([t, m]) => JSON.parse(m).type === 'ping').map(([t]) => t)"
    )
    assert len(pings) == 3, pings
    assert pings[0] - opened <= 2_000, pings[0] - opened
    assert 24_000 <= pings[1] - opened <= 26_500, pings[1] - opened
    assert 24_000 <= pings[2] - pings[1] <= 26_000, pings
    # The server answered each one, so the page never dropped the socket.
    assert page.evaluate("__ws.open.length") == 1
    expect(page.locator("#room")).to_have_attribute("data-connected", "yes")


@pytest.mark.timeout(180)
def test_the_host_chooses_an_easier_computer_for_new_players(players, server):
    """The lobby offers two computer levels where a game has an easier one
    (Liar's Dice `easy`, Ludo `smart`); the seat says which one sits there."""
    host = players("Tanvir", "bn", PHONE)
    host.start()
    code = host.create_room("liars_dice", 3)
    # Start is greyed while a seat is open, and says why beside it.
    start, why = host.page.get_by_test_id("start"), host.page.get_by_test_id("start-why")
    expect(start).to_be_disabled()
    expect(why).to_have_text("শুরুর আগে প্রতিটি আসনে একজন খেলোয়াড় বা কম্পিউটার লাগবে।")
    expect(start).to_have_attribute("aria-describedby", "start-why")
    host.page.select_option("#bot-level", "easy")
    host.page.get_by_test_id("add-bot").first.click()
    expect(host.page.locator(".seat-row[data-seat='1'] .tag")).to_have_text(
        ["কম্পিউটার, সহজ"]
    )
    host.page.get_by_test_id("fill-bots").click()
    expect(start).to_be_enabled()
    expect(why).to_have_count(0)
    kinds = query(
        server,
        'SELECT bot_kind FROM rooms_seat WHERE room_id = ? AND kind = \'bot\' ORDER BY "index"',
        room_id(server, code),
    )
    assert kinds == [("easy",), ("easy",)]


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_the_host_sets_the_party_pace_on_a_phone(players, server, lang):
    """The pace is two choices whose words wrap (a select cut "Party: 30 seconds
    a move, for n" off on a 360 px phone): the host taps the party one, the
    server keeps it, and a reload shows it chosen; an arrow key goes back."""
    host = players("Tanvir", lang, PHONE)
    host.start()
    code = host.create_room("ludo", 4)
    page = host.page
    expect(page.get_by_test_id("pace-normal")).to_be_checked()
    party = page.locator("label.choice", has=page.get_by_test_id("pace-party"))
    words = party.inner_text()
    assert ("৩০" if lang == "bn" else "30 seconds") in words, words
    box = party.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    before = version(page)
    party.click()
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    assert query(server, "SELECT pace FROM rooms_room WHERE id = ?", room_id(server, code)) == [
        ("party",)
    ]
    page.reload()  # what the server kept, not what the page last drew
    host.wait_online()
    expect(page.get_by_test_id("pace-party")).to_be_checked()
    expect(page.get_by_test_id("pace-normal")).not_to_be_checked()

    # By keyboard: an arrow key moves the choice, and the focus stays on it
    # through the lobby's redraw.
    page.get_by_test_id("pace-party").focus()
    before = version(page)
    page.keyboard.press("ArrowUp")
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    expect(page.get_by_test_id("pace-normal")).to_be_checked()
    expect(page.get_by_test_id("pace-normal")).to_be_focused()
    assert query(server, "SELECT pace FROM rooms_room WHERE id = ?", room_id(server, code)) == [
        ("normal",)
    ]


@pytest.mark.timeout(180)
def test_the_host_chooses_an_expert_computer_where_the_game_has_one(players, server, screenshots):
    """Liar's Dice offers a third level, the `search` computer that thinks longer;
    Ludo, whose `search` measures no stronger than `standard` and so declares no
    expert kind, offers the easier and the standard one; Snakes & Ladders, with no
    choice for a computer to make, offers no levels at all. Levels are listed
    easiest first, in the page's language."""
    host = players("Nadia", "bn", PHONE)
    host.start()
    code = host.create_room("liars_dice", 3)
    level = host.page.locator("#bot-level option")
    expect(level).to_have_text(["সহজ", "পাকা খেলোয়াড়", "ওস্তাদ: একটু বেশি ভেবে চাল দেয়"])
    expect(host.page.locator("#bot-level")).to_have_value("standard")
    host.page.select_option("#bot-level", "search")
    host.page.get_by_test_id("add-bot").first.click()
    expect(host.page.locator(".seat-row[data-seat='1'] .tag")).to_have_text(["কম্পিউটার, ওস্তাদ"])
    host.page.get_by_test_id("add-bot").first.click()
    expect(host.page.get_by_test_id("start")).to_be_enabled()
    host.shoot(screenshots, "lobby-expert-computer")
    kinds = query(
        server,
        'SELECT bot_kind FROM rooms_seat WHERE room_id = ? AND kind = \'bot\' ORDER BY "index"',
        room_id(server, code),
    )
    assert kinds == [("search",), ("search",)]

    other = players("Rumi", "en", PHONE)
    other.start()
    other.create_room("ludo", 2)
    expect(other.page.locator("#bot-level option")).to_have_text(["Easy", "Strong"])
    other.page.goto(other.base_url + "/")
    other.create_room("snakes", 2)
    expect(other.page.get_by_test_id("add-bot").first).to_be_visible()
    expect(other.page.locator("#bot-level")).to_have_count(0)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_a_friend_with_no_nickname_opens_the_link_and_gets_the_seat_they_tapped(
    players, server, screenshots, lang
):
    """The share link reaches a friend who has never been here, so has no
    nickname. Their "Sit here" used to send a join the server refused, and the
    refusal was drawn into the lobby's head and wiped by the redraw that came
    with it: on a phone the tap did nothing. Now the tap asks for the name next
    to the field (scrolled to, focused), what they type survives the lobby's
    redraws (the host adding a computer), the seat they tapped is the one they
    get, and a refused name is said where they are looking and stays said."""
    host = players("Rumi", lang, PHONE)
    host.start()
    code = host.create_room("ludo", 4)
    friend = players("Tanvir", lang, PHONE)
    page = friend.page
    page.goto(f"{server.base_url}/r/{code}/")
    friend.wait_online()
    name = page.locator("#join-name")
    expect(name).to_have_value("")
    expect(name).not_to_be_in_viewport()  # below the seats, out of sight on a phone

    # "Take a seat" with no name asks for one where they are, as "Sit here"
    # does: it sent a join the server refused in a red banner over the code.
    before = version(page)
    page.get_by_test_id("join-seat").tap()
    expect(name).to_be_focused()
    expect(page.get_by_test_id("join-hint")).to_be_visible()
    expect(page.locator("#room-error")).to_be_hidden()
    assert version(page) == before, "nothing was sent"

    page.locator("[data-key=sit-3]").tap()
    expect(name).to_be_focused()
    expect(name).to_be_in_viewport()
    hint = page.get_by_test_id("join-hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("ডাকনাম" if lang == "bn" else "nickname")
    expect(page.locator(".seat-row[data-seat='3']")).to_have_class(re.compile(r"\bis-wanted\b"))
    assert version(page) == before, "nothing was sent: the seat waits for the name"
    friend.shoot(screenshots, "lobby-friend-asked-for-a-name")

    # A refused name is said on screen, and the redraw that follows keeps it.
    page.keyboard.type("!!!")
    page.keyboard.press("Enter")
    alert = page.locator("#room-error")
    expect(alert).to_be_visible()
    expect(alert).to_be_in_viewport()
    refusal = alert.inner_text()
    assert refusal.strip(), "the refusal has words"
    expect(page.locator("#room")).to_have_attribute("data-you-seat", "")

    # The host adds a computer while the friend types: the lobby is drawn
    # again, and neither the letters nor the caret are lost.
    page.fill("#join-name", "")
    page.keyboard.type("Tan")
    before = version(page)
    host.page.locator("[data-key=bot-1]").click()
    expect(page.locator("#room")).not_to_have_attribute("data-version", before)
    expect(page.locator(".seat-row[data-seat='1'] .tag")).to_have_count(1)
    expect(name).to_be_focused()
    page.keyboard.type("vir")
    expect(name).to_have_value("Tanvir")

    # A refusal just before the seat is taken goes with it (it stayed 5 s,
    # over the code, after the friend had sat down).
    page.fill("#join-name", "!!!")
    page.keyboard.press("Enter")
    expect(alert).to_be_visible()
    page.fill("#join-name", "Tanvir")
    page.keyboard.press("Enter")
    # Seat 2 is the lowest open one; the friend asked for seat 3.
    expect(page.locator("#room")).to_have_attribute("data-you-seat", "3")
    expect(alert).to_be_hidden(timeout=2_000)
    expect(host.page.locator(".seat-row[data-seat='3'] .seat-name")).to_have_text("Tanvir")
    assert query(
        server,
        'SELECT kind FROM rooms_seat WHERE room_id = ? AND "index" = 3',
        room_id(server, code),
    ) == [("human",)]
    expect(page.get_by_test_id("join-hint")).to_have_count(0)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_the_host_frees_the_seat_of_a_friend_who_left_the_lobby_and_another_friend_sits(
    players, server, screenshots, lang
):
    """A friend sat, then closed the page. Their seat held their name until the
    start, so a second friend found the table full. The host's "Free seat"
    gives it back; a friend who is still here is refused by name and keeps it."""
    host = players("Rumi", lang, PHONE)
    first = players("Tanvir", lang, PHONE)
    code = seat_two(host, first, "ludo", 2)
    seat = host.page.locator(".seat-row[data-seat='1']")
    expect(seat.locator(".seat-name")).to_have_text("Tanvir")
    expect(seat.locator(".conn")).to_have_class(re.compile(r"\bon\b"))

    # Here: the server refuses, names them, and the seat stays theirs.
    before = version(host.page)
    seat.locator("[data-key=free-1]").click()
    alert = host.page.locator("#room-error")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("Tanvir")
    expect(seat.locator(".seat-name")).to_have_text("Tanvir")
    assert version(host.page) == before

    # The friend closes the page: the host sees them away, and frees the seat.
    first.close()
    expect(seat.locator(".conn")).not_to_have_class(re.compile(r"\bon\b"))
    host.shoot(screenshots, "lobby-host-sees-a-friend-away")
    free = seat.locator("[data-key=free-1]")
    expect(free).to_have_attribute(
        "aria-label", re.compile("Tanvir-এর আসন খালি করুন" if lang == "bn" else "Free Tanvir's seat"))
    free.click()
    expect(seat.locator(".seat-name")).to_have_text("খালি আসন" if lang == "bn" else "Empty seat")
    assert query(
        server, 'SELECT kind, name FROM rooms_seat WHERE room_id = ? AND "index" = 1',
        room_id(server, code),
    ) == [("open", "")]

    second = players("Mitu", lang, PHONE)
    second.start()
    second.join_by_typing(code)
    expect(seat.locator(".seat-name")).to_have_text("Mitu")
    expect(host.page.get_by_test_id("start")).to_be_enabled()
    assert not host.errors and not second.errors


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_when_the_host_leaves_the_lobby_a_friend_becomes_the_host_and_starts(
    players, server, screenshots, lang
):
    """Only the host starts a private table: a host who closed the page kept
    the friends waiting until the room expired."""
    host = players("Rumi", lang, PHONE)
    friend = players("Tanvir", lang, PHONE)
    code = seat_two(host, friend, "snakes", 3)
    page = friend.page
    expect(page.get_by_test_id("take-host")).to_have_count(0)  # the host is here
    host.close()
    take = page.get_by_test_id("take-host")
    expect(take).to_be_visible()
    friend.shoot(screenshots, "lobby-the-host-went-away")
    take.click()
    expect(page.locator("#room")).to_have_attribute("data-you-seat", "0")
    expect(page.locator("#live")).to_contain_text(  # the lobby has no event log
        "এখন আপনি হোস্ট" if lang == "bn" else "You are the host now")
    # The new host runs the table: frees the old host's seat, fills it, starts.
    page.locator("[data-key=free-1]").click()
    expect(page.locator(".seat-row[data-seat='1'] .seat-name")).to_have_text(
        "খালি আসন" if lang == "bn" else "Empty seat")
    page.get_by_test_id("fill-bots").click()
    start = page.get_by_test_id("start")
    expect(start).to_be_enabled()
    start.click()
    expect(page.locator("#room")).to_have_attribute("data-view", "table")
    assert query(server, "SELECT status FROM rooms_room WHERE code = ?", code) == [("playing",)]
    assert not friend.errors


@pytest.mark.timeout(120)
def test_the_more_sheet_has_the_way_home_and_the_language_switch(players, screenshots):
    """At the table the header shows only the site's name: "More" holds the
    way back to the start and the language switch, which returns to the
    table in the other language."""
    rumi = players("Rumi", "bn", PHONE)
    tanvir = players("Tanvir", "en", PHONE)
    seat_two_and_start(rumi, tanvir, "snakes", 2)
    page = rumi.page
    open_more(page)
    foot = page.get_by_test_id("more-foot")
    expect(foot.get_by_test_id("more-home")).to_have_text("শুরুর পাতায় ফিরুন")
    expect(foot.get_by_test_id("more-home")).to_have_attribute("href", "/")
    rumi.shoot(screenshots, "table-more-foot")
    foot.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#room")).to_have_attribute("data-view", "table")
    expect(page.get_by_test_id("turn-bar")).to_be_visible()


@pytest.mark.timeout(120)
def test_a_friend_who_has_a_nickname_sits_with_one_tap(players, server):
    """A friend who has played here before opens the share link: the name
    field holds their nickname, and "Sit here" seats them at once (it took
    them to the name field, as if they had none)."""
    host = players("Rumi", "bn", PHONE)
    host.start()
    code = host.create_room("ludo", 4)
    friend = players("Tanvir", "bn", PHONE)
    friend.start()  # a nickname in this browser's session
    page = friend.page
    page.goto(f"{server.base_url}/r/{code}/")
    friend.wait_online()
    expect(page.locator("#join-name")).to_have_value("Tanvir")
    page.locator("[data-key=sit-2]").tap()
    expect(page.locator("#room")).to_have_attribute("data-you-seat", "2")
    expect(host.page.locator(".seat-row[data-seat='2'] .seat-name")).to_have_text("Tanvir")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_someone_without_a_seat_is_told_they_are_watching(players, screenshots, lang):
    """A drill's third friend opened the link mid-game: the bar where the
    controls go was empty, and nothing said why."""
    rumi, mina = players("Rumi", lang, PHONE), players("Mina", lang, PHONE)
    code = seat_two_and_start(rumi, mina, "snakes", 2)
    joya = players("Joya", lang, PHONE).start()
    joya.page.goto(f"{joya.base_url}/r/{code}/")
    expect(joya.page.locator("#room")).to_have_attribute("data-view", "table")
    watching = joya.page.get_by_test_id("watching")
    said = {"bn": "আপনি খেলাটা দেখছেন", "en": "You are watching this game"}
    expect(watching).to_have_text(said[lang])
    expect(watching).to_be_in_viewport()
    joya.shoot(screenshots, "spectator")
    for player in (rumi, mina):
        expect(player.page.get_by_test_id("watching")).to_have_count(0)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_friends_in_the_lobby_see_the_pace_and_house_rules_the_host_chose(players, screenshots,
                                                                          lang):
    """A drill's friend saw neither the pace nor the house rules before the
    game began: only the host's card showed them."""
    host, friend = players("Tanvir", lang, PHONE), players("Mina", lang, PHONE)
    seat_two(host, friend, "ludo", 4)
    terms = friend.page.get_by_test_id("table-terms")
    expect(terms).to_contain_text("১৫" if lang == "bn" else "15 seconds")
    expect(terms.locator("[data-rule=home_bonus_roll]")).to_have_attribute("data-on", "yes")
    before = version(host.page)
    host.page.get_by_test_id("pace-party").click()
    expect(host.page.locator("#room")).not_to_have_attribute("data-version", before)
    before = version(host.page)
    host.page.locator("#home-bonus-roll").uncheck()
    expect(host.page.locator("#room")).not_to_have_attribute("data-version", before)
    expect(terms).to_contain_text("৩০" if lang == "bn" else "30 seconds")
    expect(terms.locator("[data-rule=home_bonus_roll]")).to_have_attribute("data-on", "no")
    expect(host.page.get_by_test_id("table-terms")).to_have_count(0)  # the host has the card
    friend.shoot(screenshots, "lobby-table-terms")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_a_full_lobby_keeps_each_seat_on_one_line(players, screenshots, lang):
    """A drill's six-seat lobby put each computer's Remove under its name,
    doubling the rows: the name gives way (it ends in …) instead."""
    host = players("Shahriar", lang, PHONE)
    host.start()
    host.create_room("ludo", 6)
    page = host.page
    page.get_by_test_id("fill-bots").click()
    rows = page.locator(".seat-list .seat-row")
    expect(rows.locator("[data-key^=rm-]")).to_have_count(5)
    # One line: a 44 px button and the row's padding (two lines were 86 px).
    heights = [round(row.bounding_box()["height"]) for row in rows.all()]
    assert max(heights) <= 60, heights
    host.shoot(screenshots, "lobby-six-seats")
