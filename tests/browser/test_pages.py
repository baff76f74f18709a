"""Every page outside the table, in both languages at phone and desktop size.

The pages must fit a 360 px phone without sideways scrolling, keep every
control thumb-sized, and fetch nothing from anywhere else.
"""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PAGES = {
    "home": "/",
    "rules-liars-dice": "/rules/liars-dice/",
    "rules-ludo": "/rules/ludo/",
    "rules-snakes": "/rules/snakes-and-ladders/",
}
HEADINGS = {
    "bn": {"rules-liars-dice": "লায়ার্স ডাইস", "rules-ludo": "লুডু", "rules-snakes": "সাপ-লুডু"},
    "en": {
        "rules-liars-dice": "Liar's Dice", "rules-ludo": "Ludo", "rules-snakes": "Snakes & Ladders",
    },
}


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_home_and_rules_pages_fit_a_phone_in_both_languages(lang, players, screenshots):
    player = players("Rumi", lang, PHONE)
    page = player.page
    for label, path in PAGES.items():
        page.goto(player.base_url + path)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        if label in HEADINGS[lang]:
            expect(page.locator("h1")).to_contain_text(HEADINGS[lang][label])
            assert page.locator("main svg").count() >= 1, "the rules page has its diagrams"
            assert page.locator("details").count() >= 3, "the rules page has its questions"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], label
        # And the header's: the "Sign in" link was 23 px tall (a phone drill).
        for control in page.locator("main button:visible, main .button:visible, "
                                    ".site-header a:visible, .site-header button:visible").all():
            box = control.bounding_box()
            assert box is not None and box["height"] >= 44, (label, control.inner_text())
        player.shoot(screenshots, label + "-first-visit" if label == "home" else label)
    # After the nickname the home page offers the three ways in.
    player.start()
    expect(page.locator("#play button")).to_have_count(3)
    expect(page.locator(".code-box")).to_have_count(4)
    player.shoot(screenshots, "home")


def test_the_code_boxes_take_a_pasted_lower_case_code(players):
    player = players("Rumi", "en", PHONE).start()
    page = player.page
    page.locator(".code-box").first.focus()
    page.evaluate(
        """() => {
            const data = new DataTransfer();
            data.setData('text/plain', ' ab-cd ');
            document.querySelector('.code-box').dispatchEvent(
                new ClipboardEvent('paste',
                    {clipboardData: data, bubbles: true, cancelable: true}));
        }"""
    )
    values = [box.input_value() for box in page.locator(".code-box").all()]
    assert values == ["A", "B", "C", "D"]
    assert page.locator("#join-form input[name=code]").input_value() == "ABCD"


def test_bengali_text_joins_case_endings_to_bengali_names(players):
    """The catalogue writes "%(name)s-এর"; a Bengali name takes the ending joined."""
    page = players("Rumi", "bn", PHONE).start().page
    # start() returns once the home page is shown; its deferred scripts may still run.
    page.wait_for_function("() => window.KG && KG.fmt && window.gettext")
    said = page.evaluate(
        """() => [
            'রুমি', 'রাজু', 'মিতা', 'রহিম',
            '\\u09ac\\u09bf\\u099c\\u09df', '\\u09ac\\u09bf\\u099c\\u09af\\u09bc',
            'Alex', 'খেলোয়াড় ২', '😀',
        ].map(name => [
            KG.fmt(gettext("%(name)s's turn"), {name}),
            KG.fmt(gettext("Pass the phone to %(name)s"), {name}),
        ])"""
    )
    assert said == [
        ["রুমির পালা", "ফোনটা রুমিকে দিন"],
        ["রাজুর পালা", "ফোনটা রাজুকে দিন"],
        ["মিতার পালা", "ফোনটা মিতাকে দিন"],
        ["রহিমের পালা", "ফোনটা রহিমকে দিন"],
        # য় as one code point, then as য and a nukta
        ["\u09ac\u09bf\u099c\u09df\u09c7র পালা", "ফোনটা \u09ac\u09bf\u099c\u09dfকে দিন"],
        ["\u09ac\u09bf\u099c\u09af\u09bc\u09c7র পালা", "ফোনটা \u09ac\u09bf\u099c\u09af\u09bcকে দিন"],
        ["Alex-এর পালা", "ফোনটা Alex-কে দিন"],
        ["খেলোয়াড় ২-এর পালা", "ফোনটা খেলোয়াড় ২-কে দিন"],
        ["😀-এর পালা", "ফোনটা 😀-কে দিন"],
    ]
    # A number keeps the written hyphen, and English is untouched.
    assert page.evaluate(
        """() => KG.fmt(gettext("A moderator removed the player in seat %(n)s"), {n: 3})"""
    ) == "একজন মডারেটর আসন ৩-এর খেলোয়াড়কে সরিয়ে দিয়েছেন"


def test_a_first_visit_goes_on_to_what_was_tapped_once_the_nickname_is_chosen(players):
    """No nickname yet: "Create a room" goes to the name first, and after it
    the page opens at the room form, not at the top (where the player had to
    find the button and tap it again)."""
    player = players("Rumi", "bn", PHONE)
    page = player.page
    page.goto(player.base_url + "/")
    # It opens at the top, the site's name in sight: an autofocus on the
    # nickname had scrolled past it (a phone drill).
    assert page.evaluate("window.scrollY") == 0
    expect(page.locator("#nickname-input")).not_to_be_focused()
    page.locator("a[data-then='#create']").tap()
    expect(page.locator("#nickname-input")).to_be_in_viewport()
    expect(page.locator("#nickname-input")).to_be_focused()
    page.keyboard.type("রুমি")
    page.locator("#nickname button[type=submit]").tap()
    page.wait_for_url(player.base_url + "/#create")
    expect(page.locator("#create")).to_be_in_viewport()
    expect(page.locator(".greeting")).to_contain_text("রুমি")


def test_a_rules_page_sends_the_player_to_its_own_game(players):
    """Before, "Play now" and "Start a table" under the Ludo rules opened the
    home page with Liar's Dice chosen: the player had to find Ludo again."""
    player = players("Rumi", "en", PHONE)
    page = player.page
    page.goto(player.base_url + "/rules/ludo/")
    page.locator(".rules-cta a[href*='#play']").tap()
    # A first visit: the nickname first, then on to the game's quick play.
    expect(page.locator("#nickname-input")).to_be_in_viewport()
    page.fill("#nickname-input", "Rumi")
    page.locator("#nickname button[type=submit]").tap()
    page.wait_for_url(player.base_url + "/?game=ludo#play")
    expect(page.locator(".game-tile.is-chosen")).to_have_count(1)
    expect(page.locator(".game-tile.is-chosen [data-testid=play-ludo]")).to_be_in_viewport()

    page.goto(player.base_url + "/rules/snakes-and-ladders/")
    page.locator(".rules-cta a[href*='#create']").tap()
    page.wait_for_url(player.base_url + "/?game=snakes#create")
    expect(page.locator("input[name=game][value=snakes]")).to_be_checked()
    expect(page.locator("#create")).to_be_in_viewport()
    # An unknown game changes nothing: the first game, nothing marked.
    page.goto(player.base_url + "/?game=chess#create")
    expect(page.locator("input[name=game]").first).to_be_checked()
    expect(page.locator(".game-tile.is-chosen")).to_have_count(0)


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_an_empty_field_is_explained_in_the_pages_language(players, lang):
    """The browser's own "Please fill out this field" speaks the phone's
    language: on a Bengali page on an English phone it was English."""
    player = players("Rumi", lang, PHONE)
    page = player.page
    page.goto(player.base_url + "/")
    page.locator("#nickname button[type=submit]").tap()
    said = "document.querySelector('#nickname-input').validationMessage"
    assert page.evaluate(said) == {"bn": "এখানে কিছু লিখুন।", "en": "Write something here."}[lang]
    expect(page.locator("#nickname-input")).to_be_visible()  # nothing was sent
    page.fill("#nickname-input", "Rumi")
    assert page.evaluate(said) == ""  # written: the field is good again
    page.locator("#nickname button[type=submit]").tap()
    expect(page.locator(".greeting")).to_contain_text("Rumi")


def test_quick_play_at_the_party_pace_for_new_players(players, screenshots):
    """Private tables had the slower pace for new players; quick play had
    only 15 s a move. The box applies to the three games and is remembered."""
    player = players("Rumi", "bn", PHONE).start()
    page = player.page
    pace = page.get_by_test_id("quick-pace")
    expect(pace).not_to_be_checked()
    pace.check()
    expect(page.locator(".game-tile.game-ludo .pace-field")).to_have_value("party")
    page.locator("#play").scroll_into_view_if_needed()
    player.shoot(screenshots, "home-quick-play-party")
    page.get_by_test_id("play-ludo").tap()
    player.wait_online()
    assert page.evaluate("KG.state.snap.room.pace") == "party"
    assert page.evaluate("KG.state.snap.room.visibility") == "public"
    # The lobby says the table got the pace asked for.
    expect(page.get_by_test_id("quick-pace-shown")).to_have_text(
        "পার্টি: প্রতি চালে ৩০ সেকেন্ড, নতুনদের জন্য")
    page.goto(player.base_url + "/")
    expect(page.get_by_test_id("quick-pace")).to_be_checked()  # remembered
    page.get_by_test_id("quick-pace").uncheck()
    expect(page.locator(".game-tile.game-snakes .pace-field")).to_have_value("normal")
    page.get_by_test_id("play-snakes").tap()
    player.wait_online()
    assert page.evaluate("KG.state.snap.room.pace") == "normal"
    expect(page.get_by_test_id("quick-pace-shown")).to_have_count(0)


def test_a_refused_sign_up_opens_at_the_field_that_was_wrong(players, screenshots):
    """A drill's two passwords did not match: the page came back scrolled to
    the top, the cursor in the username and the error below the fold."""
    player = players("Rumi", "bn", PHONE)
    page = player.page
    page.goto(player.base_url + "/accounts/signup/")
    page.fill("input[name=username]", "rumi_drill")
    page.fill("input[name=password1]", "khela-ghor-2024!")
    page.fill("input[name=password2]", "khela-ghor-2025!")
    page.locator("main form button[type=submit]").click()
    error = page.locator(".field-error")
    expect(error).to_have_count(1)
    expect(page.locator("input[name=password2]")).to_be_focused()
    expect(error).to_be_in_viewport()
    player.shoot(screenshots, "sign-up-refused")
    page.goto(player.base_url + "/accounts/password/reset/")
    expect(page.locator("main form button[type=submit]")).to_have_text("লিংক পাঠান")


def test_changing_the_game_keeps_the_nearest_number_of_players(players):
    """A drill chose Ludo for 5, then Snakes & Ladders: the count fell to 2,
    not to the 4 the game allows at most."""
    page = players("Rumi", "en", PHONE).start().page
    page.check("input[name=game][value=ludo]")
    page.select_option("#seats-select", "5")
    page.check("input[name=game][value=snakes]")
    expect(page.locator("#seats-select")).to_have_value("4")
    page.check("input[name=game][value=ludo]")
    expect(page.locator("#seats-select")).to_have_value("4")  # in range: kept
