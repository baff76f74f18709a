"""Bengali first (issue 14): a visitor reads Bengali unless they chose English
or their browser's *first* language is English; the switch is one tap, works
without JavaScript and returns to the same page. The room socket chooses its
language the same way as the page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from config.clients import scope_language
from config.language import preferred_language

pytestmark = pytest.mark.django_db

BENGALI = ["", "bn", "bn,en", "fr,en", "fr-FR,fr;q=0.9,en;q=0.8", "hi,en-US;q=0.9", "*",
           "en;q=0.5,bn", "xx-!!"]
ENGLISH = ["en-US,en;q=0.9", "en", "en-GB", "EN-us,bn;q=0.5"]


@pytest.mark.parametrize("header", BENGALI + ENGLISH)
def test_a_page_is_bengali_unless_the_browser_asks_for_english_first(client, header):
    extra = {"HTTP_ACCEPT_LANGUAGE": header} if header else {}
    html = client.get(reverse("home"), **extra).content.decode()
    wanted = "en" if header in ENGLISH else "bn"
    assert f'<html lang="{wanted}">' in html
    assert preferred_language("", header) == wanted
    scope = {"headers": [(b"accept-language", header.encode())] if header else []}
    assert scope_language(scope) == wanted  # the socket agrees with its page


def test_the_visitors_choice_beats_the_browser(client):
    client.cookies["django_language"] = "bn"
    assert '<html lang="bn">' in client.get("/", HTTP_ACCEPT_LANGUAGE="en-US").content.decode()
    client.cookies["django_language"] = "en"
    assert '<html lang="en">' in client.get("/", HTTP_ACCEPT_LANGUAGE="bn").content.decode()
    client.cookies["django_language"] = "klingon"  # not ours: the browser decides
    assert '<html lang="bn">' in client.get("/", HTTP_ACCEPT_LANGUAGE="fr,en").content.decode()


def test_the_switch_is_one_tap_per_language_with_no_change_button(client):
    html = client.get(reverse("rules", args=["ludo"])).content.decode()
    form = re.search(r'<form class="language-switcher".*?</form>', html, re.S).group(0)
    buttons = re.findall(r'<button type="submit" name="language" value="(\w+)"[^>]*'
                         r'aria-pressed="(\w+)">([^<]+)</button>', form)
    assert buttons == [("bn", "true", "বাংলা"), ("en", "false", "English")]
    assert "<select" not in form and "বদলান" not in form
    assert 'name="next" type="hidden" value="/rules/ludo/"' in form


def test_a_tap_sets_the_language_and_returns_to_the_same_page_without_javascript(client):
    page = reverse("rules", args=["ludo"]) + "?from=home"
    response = client.post(reverse("set_language"), {"language": "en", "next": page})
    assert response.status_code == 302 and response["Location"] == page
    assert response.cookies["django_language"].value == "en"
    html = client.get(page, HTTP_ACCEPT_LANGUAGE="bn").content.decode()
    assert '<html lang="en">' in html
    assert re.search(r'value="en"[^>]*aria-pressed="true"', html)
