"""The moderators' admin speaks the site's languages: every name the admin shows of
our models, fields and choices is translated into Bengali, and the words Django's
own Bengali catalogue lacks (config/admin_words.py) are Django's msgids exactly."""

from __future__ import annotations

import re
from pathlib import Path

import django
import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import translation

from config import admin_words
from rooms.models import Game, Room
from tests.history.factories import record_for, stored_game

OUR_APPS = ("rooms", "accounts_optional")
ADMIN_WORDS = Path(admin_words.__file__)
DJANGO = Path(django.__file__).parent


def in_both(text) -> tuple[str, str]:
    """``text`` (a lazy translation) as English and as Bengali."""
    with translation.override("en"):
        english = str(text)
    with translation.override("bn"):
        return english, str(text)


def untranslated(texts) -> list[str]:
    return [english for english, bengali in map(in_both, texts) if english == bengali]


def test_every_model_field_and_choice_of_ours_has_a_bengali_name():
    texts = []
    for label in OUR_APPS:
        config = apps.get_app_config(label)
        texts.append(config.verbose_name)
        for model in config.get_models():
            texts += [model._meta.verbose_name, model._meta.verbose_name_plural]
            for field in model._meta.get_fields():
                if field.auto_created and not field.concrete:
                    continue  # a reverse relation: named by the other model
                if field.name == "id":
                    continue
                texts.append(field.verbose_name)
                if field.help_text:
                    texts.append(field.help_text)
                texts += [label for _value, label in (field.choices or [])]
    assert len(texts) > 150
    assert untranslated(texts) == []


def django_msgids() -> set[str]:
    """Every msgid of Django's own English catalogues (the admin's, auth's, core's)."""
    msgids = set()
    for po in DJANGO.glob("**/locale/en/LC_MESSAGES/django.po"):
        text = po.read_text(encoding="utf-8")
        for entry in re.findall(r'^msgid ((?:".*"\n)+)', text, re.M):
            msgids.add("".join(re.findall(r'"(.*)"', entry)).replace('\\"', '"'))
    return msgids


def test_the_django_words_we_translate_are_django_s_own_and_read_in_bengali():
    known = django_msgids()
    plurals = re.findall(r'ngettext_lazy\("([^"]+)", "([^"]+)"', ADMIN_WORDS.read_text())
    words = list(admin_words.DJANGO_WORDS) + [singular for singular, _plural in plurals]
    assert len(plurals) == len(admin_words.DJANGO_PLURALS) == 6
    assert [w for w in words if w not in known] == []  # Django renamed one: follow it
    with translation.override("bn"):
        assert [w for w in admin_words.DJANGO_WORDS if translation.gettext(w) == w] == []
        assert [s for s, p in plurals if translation.ngettext(s, p, 5) == p] == []
        assert translation.ngettext("%(num)d minute", "%(num)d minutes", 5) == "%(num)d মিনিট"


@pytest.mark.django_db
def test_a_room_s_admin_page_reads_in_bengali_and_in_english(admin_client):
    game = stored_game(record_for("ludo"))
    room = Room.objects.get(id=game.room_id)
    url = reverse("admin:rooms_room_change", args=[room.id])
    admin_client.cookies["django_language"] = "bn"
    bengali = admin_client.get(url).content.decode()
    for words in ("লুডু", "শেষ", "কারা দেখতে পায়", "পরের সার্ভার সিডের হ্যাশ", "রুম ও খেলা"):
        assert words in bengali, words
    for words in ("Visibility", "Next server seed hash", "Finished", "View site"):
        assert words not in bengali, words
    # Shown, never fields to edit: a room's game, and the game it is playing.
    assert 'name="game"' not in bengali and 'name="current_game"' not in bengali
    admin_client.cookies["django_language"] = "en"
    english = admin_client.get(url).content.decode()
    for words in ("Ludo", "Visibility", "Next server seed hash", "Rooms and games"):
        assert words in english, words
    with translation.override("bn"):
        assert str(game) == f"{room.code} খেলা 1 (লুডু, শেষ)"
    with translation.override("en"):
        assert str(room) == f"{room.code} (Ludo, Finished)"
        assert game.get_status_display() == Game.Status.FINISHED.label == "Finished"
