"""A real phone-sized browser sees Bengali first and can switch to English for good.

Playwright drives Debian's Chromium (tests/services.py require_chromium); it
never downloads a browser of its own.
"""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def phone(browser):
    """A phone-sized page of its own (the server and Chromium are shared, tests/fixtures.py)."""
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, locale="bn-BD", has_touch=True
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        yield page
    finally:
        context.close()


def test_a_visitor_sees_bengali_and_can_switch_to_english_for_good(server, phone):
    requested = []
    phone.on("request", lambda request: requested.append(request.url))

    phone.goto(server.base_url + "/")
    assert phone.locator("html").get_attribute("lang") == "bn"
    assert phone.get_by_role("link", name="এখনই খেলুন").is_visible()

    phone.get_by_role("button", name="English").click()  # one tap, no "Change" button
    expect(phone.locator("html")).to_have_attribute("lang", "en")
    assert phone.url == server.base_url + "/"  # back on the same page
    assert phone.get_by_role("link", name="Play now").is_visible()

    phone.reload()
    assert phone.locator("html").get_attribute("lang") == "en"

    assert all(url.startswith(server.base_url) for url in requested), requested


def test_the_home_page_fits_a_360px_phone_with_thumb_sized_controls(server, phone):
    phone.goto(server.base_url + "/")
    scroll_width = phone.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= 360
    controls = phone.locator("main .button, header button, header select")
    assert controls.count() >= 4
    for index in range(controls.count()):
        box = controls.nth(index).bounding_box()
        assert box is not None and box["height"] >= 44, controls.nth(index).inner_text()
