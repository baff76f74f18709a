"""Every number a Bengali page shows is in Bengali digits (issue 14), the
server-rendered pages included: counts, game numbers, dates, ratings, the
profile's games table, the leaderboard, the finished-game and verify pages.

What a reader sees is the page's text outside <script>, <style>, <template>
and <textarea>, plus the ``alt``, ``title``, ``aria-label`` and
``placeholder`` attributes. Exempt, because they are identifiers to copy
rather than numbers to read: text inside <code>, <kbd> and <samp> (seeds,
hashes, records, the verify page's technical detail), anything marked
``translate="no"`` (room codes), and URLs (they are attributes). The admin is
exempt (staff only, in English).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.history.factories import lobby_room, record_for, stored_game

pytestmark = pytest.mark.django_db

ASCII_DIGITS = re.compile(r"[0-9]+")
HIDDEN = {"script", "style", "template", "textarea"}
EXEMPT = {"code", "kbd", "samp"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
SHOWN_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder")


class VisibleDigits(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.found: list[str] = []

    def skipping(self) -> bool:
        return any(skipped for _, skipped in self.stack)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        skipped = tag in HIDDEN or tag in EXEMPT or attributes.get("translate") == "no"
        if not skipped and not self.skipping():
            for name in SHOWN_ATTRIBUTES:
                value = attributes.get(name) or ""
                if ASCII_DIGITS.search(value):
                    self.found.append(f"<{tag} {name}={value!r}>")
        if tag not in VOID:
            self.stack.append((tag, skipped))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        if not self.skipping() and ASCII_DIGITS.search(data):
            self.found.append(" ".join(data.split())[:120])


def visible_ascii_digits(html: str) -> list[str]:
    parser = VisibleDigits()
    parser.feed(html)
    return parser.found


def test_the_checker_sees_digits_in_text_and_labels_but_not_in_codes():
    html = ('<p>খেলা 1</p><p title="৩ of 9">x</p><code>ab12</code>'
            '<span translate="no">K7QX</span><a href="/games/12/">১২</a>'
            '<script>var n = 3;</script>')
    assert visible_ascii_digits(html) == ["খেলা 1", "<p title='৩ of 9'>"]


def _pages(client, django_user_model) -> dict[str, str]:
    user = django_user_model.objects.create_user("rumi", password="a long pass phrase 1")
    client.force_login(user)
    key = client.session.session_key
    # Names as a live table gives them: the player's nickname, computers' names.
    names = {0: "রুমি", 1: "Mitu (AI)", 2: "Robi (AI)"}
    played = [stored_game(record_for(game), humans={0: key}, users={0: user}, names=names)
              for game in ("liars_dice", "ludo", "snakes")]
    room, host, _ = lobby_room("ludo", 4)
    client.cookies["django_language"] = "bn"
    pages = {
        "home": reverse("home"),
        "rules liars": reverse("rules", args=["liars-dice"]),
        "rules ludo": reverse("rules", args=["ludo"]),
        "rules snakes": reverse("rules", args=["snakes-and-ladders"]),
        "profile": reverse("profile"),
        "leaderboard": reverse("leaderboard", args=["ludo"]),
        "verify": reverse("verify"),
        "room": reverse("room", args=[room.code]),
        "offline": reverse("offline"),
    }
    pages.update({f"game {g.game}": reverse("game_page", args=[g.id]) for g in played})
    html = {name: client.get(url).content.decode() for name, url in pages.items()}
    verdict = client.post(reverse("verify"), {"record": '{"format": "chess"}'})
    html["verify, failed"] = verdict.content.decode()
    import json

    good = client.post(reverse("verify"), {"record": json.dumps(record_for("ludo"))})
    html["verify, passed"] = good.content.decode()
    del host
    return html


def test_every_server_page_in_bengali_shows_bengali_digits(client, django_user_model):
    offenders = {name: digits for name, html in _pages(client, django_user_model).items()
                 if (digits := visible_ascii_digits(html))}
    assert not offenders, offenders


def test_computer_players_have_bengali_names_on_a_bengali_page(client, django_user_model):
    pages = _pages(client, django_user_model)
    # Bengali script for "AI" too: no Latin word on a Bengali page.
    assert "মিতু (এআই)" in pages["game ludo"] and "রবি (এআই)" in pages["game snakes"]
    shown = re.sub(r"<script.*?</script>", "", pages["game snakes"], flags=re.S)
    assert "Mitu (AI)" not in shown  # the record keeps the one stored name
    client.cookies["django_language"] = "en"
    game_id = re.search(r'href="/games/(\d+)/"', pages["profile"]).group(1)
    english = client.get(reverse("game_page", args=[game_id])).content.decode()
    assert "Mitu (AI)" in english and "মিতু" not in english


def test_the_same_pages_in_english_keep_latin_digits(client, django_user_model):
    _pages(client, django_user_model)
    client.cookies["django_language"] = "en"
    html = client.get(reverse("profile")).content.decode()
    assert ASCII_DIGITS.search(html) and not re.search("[০-৯]", html)
