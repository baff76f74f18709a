"""The fairness check runs in a real browser (Chromium via Playwright), so a
player need not trust the server; the replay draws with the table's renderers;
a moderator works through the admin. Screenshots: test-artifacts/screenshots/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.history.factories import record_for
from tests.history.test_game_page import tamper_one_die
from tests.servers import REPO_ROOT, free_port, run_daphne, run_manage, sqlite_env

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

SHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
GAMES = ["liars_dice", "ludo", "snakes"]

SETUP = """
import json
from django.contrib.auth import get_user_model
from tests.history.factories import record_for, stored_game, playing_room
get_user_model().objects.create_superuser("mod", "m@example.com", "browser-test-pw-1")
ids = {g: stored_game(record_for(g), humans={0: "b" * 32}, names={0: "রুমি"}).id
       for g in ("liars_dice", "ludo", "snakes")}
room, host, guest = playing_room()
ids["live_code"] = room.code
print("IDS=" + json.dumps(ids))
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A daphne of its own (Chromium is shared, tests/fixtures.py): the dashboard
    counts the games in play, so no other test's rooms may be on it, and its
    computers never act, so the live room stays as SETUP left it."""
    env = sqlite_env(tmp_path_factory.mktemp("history-db"), KHELAGHOR_BOT_DELAY="1000")
    out = run_manage("shell", "-c", SETUP, env=env)
    ids = json.loads(out.split("IDS=", 1)[1].strip().splitlines()[0])
    with run_daphne(free_port(), env) as running:
        running.ids = ids
        yield running


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="bn-BD")
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


@pytest.mark.parametrize("game", GAMES)
def test_the_browser_verifier_accepts_a_record_and_names_a_changed_die(server, page, game):
    page.goto(server.base_url + "/verify/")
    record = record_for(game)
    verdict = page.evaluate("r => KG.verifyRecord(r)", record)
    assert verdict["ok"] is True
    assert verdict["dice_checked"] == sum(len(d) for _, d in _dice(record))
    bad, index = tamper_one_die(record)
    verdict = page.evaluate("r => KG.verifyRecord(r)", bad)
    assert verdict["ok"] is False and verdict["event_index"] == index
    wrong_seed = json.loads(json.dumps(record))
    wrong_seed["fairness"]["server_seed"] = "11" * 32
    assert page.evaluate("r => KG.verifyRecord(r)", wrong_seed)["message"] == "hash"


def _dice(record):
    from games.record import dice_of_record

    return dice_of_record(record)


def test_pasting_a_record_on_the_verify_page_checks_it_in_both_places(server, page):
    bad, index = tamper_one_die(record_for("snakes"))
    page.goto(server.base_url + "/verify/")
    page.fill("[data-verify-text]", json.dumps(bad))
    page.click("[data-verify-run]")
    out = page.locator("[data-verify-out]")
    out.and_(page.locator("[data-state=failed]")).wait_for()
    assert out.get_attribute("data-event-index") == str(index)
    page.get_by_role("button", name="সার্ভারে যাচাই করুন").click()
    verdict = page.locator("[data-testid=server-verdict]")
    assert verdict.get_attribute("data-ok") == "false"
    assert verdict.get_attribute("data-event-index") == str(index)
    shot(page, "verify-rejected")


def test_a_record_file_is_chosen_and_checked_in_the_pages_own_words(server, page, tmp_path):
    """The browser's own file button said "Choose File / No file chosen" on
    the Bengali page; ours says it in Bengali and names the file chosen."""
    page.set_viewport_size({"width": 360, "height": 640})
    page.goto(server.base_url + "/verify/")
    expect(page.locator(".file-pick-button")).to_have_text("ফাইল বেছে নিন")
    expect(page.locator("[data-file-name]")).to_have_text("কোনো ফাইল বাছা হয়নি")
    saved = tmp_path / "khelaghor-game.json"
    saved.write_text(json.dumps(record_for("ludo")))
    # The keyboard's way in is the file field itself, under our button.
    field = page.get_by_label("…অথবা রেকর্ড ফাইল")
    field.focus()
    expect(field).to_be_focused()
    field.set_input_files(str(saved))
    expect(page.locator("[data-file-name]")).to_have_text("khelaghor-game.json")
    page.click("[data-verify-run]")
    page.locator("[data-verify-out][data-state=ok]").wait_for()
    shot(page, "verify-file-chosen-360x640")
    page.get_by_role("button", name="সার্ভারে যাচাই করুন").click()
    assert page.locator("[data-testid=server-verdict]").get_attribute("data-ok") == "true"


def test_the_browser_verifier_tells_a_broken_record_from_no_record(server, page):
    """A record with one quote deleted was answered "paste a record first"."""
    page.goto(server.base_url + "/verify/")
    out = page.locator("[data-verify-out]")
    page.click("[data-verify-run]")
    out.and_(page.locator("[data-state=failed]")).wait_for()
    assert "আগে একটা রেকর্ড পেস্ট করুন" in out.inner_text()
    page.fill("[data-verify-text]", json.dumps(record_for("snakes")).replace('"game"', "game", 1))
    page.click("[data-verify-run]")
    page.wait_for_function("() => document.querySelector('[data-verify-out]')"
                           ".textContent.includes('JSON')")
    assert "বৈধ JSON নয়" in out.inner_text()


@pytest.mark.parametrize("game", GAMES)
def test_the_game_page_replays_with_the_table_renderers_and_checks_the_dice(server, page,
                                                                             game):
    page.goto(f"{server.base_url}/games/{server.ids[game]}/")
    root = page.locator("#replay")
    page.wait_for_function("() => document.getElementById('replay').dataset.frames > 1")
    frames = int(root.get_attribute("data-frames"))
    board = page.locator("[data-replay-board]")
    assert board.locator("svg, .dice-row, section").count() > 0  # the renderer drew
    ends = {go: page.locator(f"button[data-go={go}]") for go in ("first", "prev", "next", "last")}
    expect(ends["first"]).to_have_attribute("aria-disabled", "true")
    expect(ends["prev"]).to_have_attribute("aria-disabled", "true")
    page.click("button[data-go=next]")
    assert root.get_attribute("data-at") == "1"
    expect(ends["prev"]).to_have_attribute("aria-disabled", "false")
    page.click("button[data-go=last]")
    assert root.get_attribute("data-at") == str(frames - 1)
    expect(ends["next"]).to_have_attribute("aria-disabled", "true")
    expect(ends["last"]).to_have_attribute("aria-disabled", "true")
    # At the end Next does nothing and keeps the keyboard's focus.
    ends["next"].focus()
    page.keyboard.press("Enter")
    assert root.get_attribute("data-at") == str(frames - 1)
    expect(ends["next"]).to_be_focused()
    page.click("button[data-go=first]")
    page.click("[data-replay-play]")
    page.wait_for_function("() => Number(document.getElementById('replay').dataset.at) >= 2")
    page.click("[data-replay-play]")
    page.click("[data-verify-run]")
    page.locator("[data-verify-out][data-state=ok]").wait_for()
    assert page.locator("[data-testid=server-verdict]").get_attribute("data-ok") == "true"
    page.locator("#replay").scroll_into_view_if_needed()
    shot(page, f"game-page-{game}")


def test_the_game_page_on_a_phone_shows_each_seed_across_the_card(server, page):
    """On a 360 px phone the page never scrolls sideways, and each 64-digit seed
    runs across the card's width instead of a ribbon a few digits wide."""
    page.set_viewport_size({"width": 360, "height": 640})
    page.goto(f"{server.base_url}/games/{server.ids['ludo']}/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    card = page.locator("section.fairness").bounding_box()
    seeds = page.locator("dl.seeds dd code")
    assert seeds.count() >= 2
    for i in range(seeds.count()):
        box = seeds.nth(i).bounding_box()
        assert box["width"] >= 0.75 * card["width"], (i, box, card)
    page.locator("dl.seeds").scroll_into_view_if_needed()
    shot(page, "game-page-seeds-360x640")


def test_a_moderator_finds_a_room_and_removes_a_player_through_the_admin(server, page):
    code = server.ids["live_code"]
    page.goto(server.base_url + "/admin/login/")
    page.fill("#id_username", "mod")
    page.fill("#id_password", "browser-test-pw-1")
    page.click("input[type=submit]")
    page.goto(server.base_url + "/admin/rooms/room/?q=" + code.lower())
    page.click(f"text={code}")
    page.wait_for_url("**/admin/rooms/room/*/change/**")  # not a blank page mid-way
    shot(page, "admin-room")
    page.locator("a[href$='/moderate/remove/1/']").click()
    page.fill("input[name=reason]", "Abusive name")
    shot(page, "admin-reason")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/rooms/room/*/change/")
    assert page.locator(".messagelist .success").count() == 1
    page.goto(server.base_url + "/admin/rooms/moderationlog/")
    assert page.locator("text=Abusive name").count() == 1
    shot(page, "admin-moderation-log")
    page.goto(server.base_url + "/staff/dashboard/")
    assert page.locator("[data-stat=games_in_play]").inner_text() == "১"  # a Bengali admin
    shot(page, "admin-dashboard")
