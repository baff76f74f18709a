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
        for control in page.locator("main button:visible, main .button:visible").all():
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
