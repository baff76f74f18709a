"""Page weight (issue 14): HTML and JSON go out compressed, and the JavaScript
catalogue is a static file (cacheable, compressed by collectstatic) with the
very text /jsi18n/ would serve, generated from the catalogues."""

from __future__ import annotations

import gzip
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from rooms.management.commands.js_catalogue import OUT_DIR, catalogue_text, stale_files
from tests.history.factories import record_for, stored_game

pytestmark = pytest.mark.django_db


def test_the_static_catalogues_are_what_jsi18n_serves(client):
    call_command("js_catalogue")
    assert not stale_files()
    call_command("js_catalogue", "--check")  # what `make` and CI can ask
    for language in ("bn", "en"):
        client.cookies["django_language"] = language
        served = client.get(reverse("javascript-catalog")).content.decode()
        assert (OUT_DIR / f"{language}.js").read_text(encoding="utf-8") == served
    assert json.dumps("যোগ করুন") in catalogue_text("bn")  # Django escapes non-ASCII


@pytest.mark.parametrize("language", ["bn", "en"])
def test_pages_load_the_catalogue_of_their_language_as_a_static_file(client, language):
    client.cookies["django_language"] = language
    html = client.get(reverse("home")).content.decode()
    assert f'<script src="/static/js/i18n/{language}.js"></script>' in html
    assert "/jsi18n/" not in html


def test_html_and_json_are_sent_gzipped_to_a_browser_that_accepts_it(client):
    page = client.get(reverse("home"), HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert page["Content-Encoding"] == "gzip" and "Accept-Encoding" in page["Vary"]
    assert b"<html" in gzip.decompress(page.content)
    game_row = stored_game(record_for("ludo"))
    replay = client.get(reverse("game_replay", args=[game_row.id]),
                        HTTP_ACCEPT_ENCODING="gzip")
    assert replay["Content-Type"].startswith("application/json")
    assert replay["Content-Encoding"] == "gzip"
    raw = gzip.decompress(replay.content)
    assert len(replay.content) < len(raw) / 3  # a replay is very repetitive JSON
    plain = client.get(reverse("home"))  # no Accept-Encoding: sent as it is
    assert not plain.has_header("Content-Encoding")


@pytest.fixture
def catalogue_decisions():
    """config.catalogue decides once per process; each test starts undecided."""
    from config import catalogue

    catalogue._decided.clear()
    yield
    catalogue._decided.clear()


def test_a_site_that_never_wrote_its_catalogue_loads_jsi18n(
        client, settings, tmp_path, catalogue_decisions):
    """`runserver` straight after installing: no static/js/i18n/bn.js to find.
    The page must not point at a file that is not there (its scripts would stop
    at the first gettext); /jsi18n/ serves the same catalogue."""
    from django.contrib.staticfiles import finders

    (tmp_path / "js").mkdir()  # a static directory without js/i18n/
    settings.STATICFILES_DIRS = [tmp_path]
    finders.get_finder.cache_clear()
    try:
        html = client.get(reverse("home")).content.decode()
    finally:
        finders.get_finder.cache_clear()
    assert '<script src="/jsi18n/"></script>' in html
    assert "/static/js/i18n/bn.js" not in html
    assert json.dumps("যোগ করুন") in client.get("/jsi18n/").content.decode()


def test_a_deployment_that_collected_no_catalogue_still_serves_its_pages(
        settings, tmp_path, catalogue_decisions):
    """Outside DEBUG the manifest storage raises for a file collectstatic never
    saw, so a page naming it was a 500; the page names /jsi18n/ instead."""
    from config.catalogue import catalogue_src

    (tmp_path / "staticfiles.json").write_text(
        json.dumps({"version": "1.1", "paths": {"css/site.css": "css/site.0123456789ab.css"},
                    "hash": ""}), encoding="utf-8")
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
    }
    settings.STATIC_ROOT = tmp_path
    from django.templatetags.static import static

    assert static("css/site.css").endswith("site.0123456789ab.css")  # the manifest is read
    assert catalogue_src("bn") == "/jsi18n/"
