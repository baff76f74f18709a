"""The account pages in Bengali: Django's auth forms' own words, and names in
Bengali script.

A drill signed up on a Bengali phone: the password rules and every error were
in English ("This password is too short. It must contain at least 8
characters.", "the সদস্যনাম"), and a username like রুমি was refused, because
Django's check does not count Bengali vowel signs as letters."""

from __future__ import annotations

import re
from pathlib import Path

import django
import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse
from django.utils import translation

from accounts_optional import django_words

pytestmark = pytest.mark.django_db
PASSWORD = "khela-ghor-2024!"
LATIN = re.compile(r"[A-Za-z]{3,}")


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def shown_text(response) -> str:
    """The account card's words, without the markup and the form's own values."""
    html = response.content.decode()
    card = html[html.index(">", html.index('class="card account-card"')) + 1:]
    card = card[:card.index("</section>")]
    card = re.sub(r"<[^>]+>", " ", card)
    return card


def test_the_sign_up_rules_and_errors_read_in_bengali_with_bengali_digits(client):
    page = client.get(reverse("signup"))
    assert LATIN.findall(shown_text(page)) == []
    refused = client.post(reverse("signup"), {"username": "rumi", "password1": "12345",
                                              "password2": "54321", "email": ""})
    words = shown_text(refused)
    assert "দুটো পাসওয়ার্ড মেলেনি" in words
    mismatch_only = client.post(reverse("signup"), {"username": "rumi", "password1": "1234",
                                                    "password2": "1234", "email": ""})
    words = shown_text(mismatch_only)
    assert "অন্তত ৮টি অক্ষর" in words and "শুধুই সংখ্যা" in words
    assert LATIN.findall(words) == [] and not re.search(r"[0-9]", words.replace("@", ""))


def test_a_wrong_sign_in_reads_in_bengali(client, django_user_model):
    django_user_model.objects.create_user("rumi", password=PASSWORD)
    refused = client.post(reverse("login"), {"username": "rumi", "password": "nope-nope"})
    assert "সঠিক সদস্যনাম আর পাসওয়ার্ড লিখুন" in shown_text(refused)


@pytest.mark.parametrize("name", ["রুমি", "তানভীর_১২৩", "মিতু.রহমান"])
def test_a_username_in_bengali_script_makes_an_account(client, name):
    made = client.post(reverse("signup"), {"username": name, "password1": PASSWORD,
                                           "password2": PASSWORD, "email": ""})
    assert made.status_code == 302, shown_text(made)
    assert get_user_model().objects.filter(username=name).exists()


@pytest.mark.parametrize("name", ["রুমি রহমান", "rumi!", "<b>"])
def test_a_username_with_spaces_or_signs_is_refused_saying_why_in_bengali(client, name):
    refused = client.post(reverse("signup"), {"username": name, "password1": PASSWORD,
                                              "password2": PASSWORD, "email": ""})
    assert refused.status_code == 200
    assert "সদস্যনামে শুধু অক্ষর" in shown_text(refused)
    assert not get_user_model().objects.filter(username=name).exists()


def test_a_username_taken_in_other_letters_case_is_still_refused(client, django_user_model):
    django_user_model.objects.create_user("Rumi", password=PASSWORD)
    refused = client.post(reverse("signup"), {"username": "rumi", "password1": PASSWORD,
                                              "password2": PASSWORD, "email": ""})
    assert refused.status_code == 200
    assert get_user_model().objects.filter(username__iexact="rumi").count() == 1


def test_the_auth_words_we_translate_are_django_s_own_and_read_in_bengali():
    known = set()
    for po in Path(django.__file__).parent.glob("**/locale/en/LC_MESSAGES/django.po"):
        for entry in re.findall(r'^msgid ((?:".*"\n)+)', po.read_text(encoding="utf-8"), re.M):
            known.add("".join(re.findall(r'"(.*)"', entry)).replace('\\"', '"'))
    source = Path(django_words.__file__).read_text(encoding="utf-8")
    plurals = re.findall(r'ngettext_lazy\("([^"]+)",\s*"([^"]+)"', source)
    assert len(plurals) == len(django_words.AUTH_PLURALS) == 2
    words = list(django_words.AUTH_WORDS) + [singular for singular, _plural in plurals]
    assert [w for w in words if w not in known] == []  # Django renamed one: follow it
    with translation.override("bn"):
        assert [w for w in django_words.AUTH_WORDS if translation.gettext(w) == w] == []
        assert [s for s, p in plurals if translation.ngettext(s, p, 8) == p] == []


@pytest.mark.parametrize("name", ["password_reset", "password_reset_done",
                                  "password_reset_complete", "login", "signup"])
def test_every_account_page_reads_in_bengali_title_and_all(client, name):
    """A drill found "Password reset sent" in English, as the heading and the
    tab's title, on the Bengali site: Django's catalogue has no Bengali for it."""
    page = client.get(reverse(name))
    html = page.content.decode()
    title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
    assert LATIN.findall(title) == [], title
    assert LATIN.findall(shown_text(page)) == []
