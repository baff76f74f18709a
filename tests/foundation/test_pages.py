"""The home page speaks Bengali unless the visitor chose English."""

import re

import pytest
from django.conf import settings
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_home_is_bengali_by_default(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="bn">' in html
    assert "এখনই খেলুন" in html
    assert "রুম তৈরি করুন" in html


def test_home_is_english_for_an_english_browser(client):
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in html
    assert "Play now" in html


def test_language_cookie_beats_the_browser(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="bn").content.decode()
    assert '<html lang="en">' in html
    assert "Join with a code" in html


def test_switching_language_sets_the_cookie_and_returns_to_the_page(client):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert '<html lang="en">' in client.get("/").content.decode()


def test_pages_load_no_third_party_assets(client):
    html = client.get(reverse("home")).content.decode()
    assert "https://" not in html and "http://" not in html


@pytest.mark.parametrize(("lang", "heading"), [("bn", "পাতাটি পাওয়া যায়নি"),
                                               ("en", "Page not found")])
def test_an_unknown_address_shows_the_sites_own_not_found_page(client, settings, lang, heading):
    """With DEBUG off (production) a wrong address gets the site's page, in the
    visitor's language, not Django's bare English "Not Found"."""
    settings.DEBUG = False
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 404
    html = response.content.decode()
    assert f'<html lang="{lang}">' in html
    assert heading in html
    assert 'href="/"' in html


@pytest.mark.parametrize("name", ["home", "verify"])
def test_every_page_links_the_dice_check_and_a_leaderboard_that_answer(client, name):
    html = client.get(reverse(name)).content.decode()
    footer = html[html.index('<footer class="site-footer">'):]
    found = re.findall(r'<a href="([^"]+)" data-testid="footer-(\w+)">([^<]+)</a>', footer)
    links = {kind: (href, text) for href, kind, text in found}
    assert links == {
        "verify": (reverse("verify"), "খেলার রেকর্ড যাচাই"),
        "leaderboard": (reverse("leaderboard", args=["liars-dice"]), "লিডারবোর্ড"),
    }
    for href, _ in links.values():
        assert client.get(href).status_code == 200, href
