"""The installable app in real Chromium: it can be installed, opens to the home
page, and offline shows a friendly page from which the rules can be read,
while a live room is never served from the cache.

Installability is Chromium's own verdict (CDP ``Page.getInstallabilityErrors``),
which needs a profile on disk (Chromium never installs from an incognito
context, which is what ``browser.new_context`` makes): each test launches its
own persistent profile. The offline part waits until the service worker
controls the page and has stored the pages in the page's language, then cuts
the network.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import time
from unittest import mock
from urllib.parse import urljoin

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.conftest import LOCALES, PHONE, Player
from tests.browser.test_contrast import LOW_CONTRAST
from tests.servers import REPO_ROOT, python_for_servers
from tests.services import CHROMIUM_ARGS

# In production static files have hashed names from collectstatic's manifest:
# the worker and the manifest must name those (and not crash looking them up).
PRODUCTION_PROBE = """
import json, os, sys
import django
django.setup()
from django.conf import settings
settings.STATIC_ROOT = sys.argv[1]
from django.core.management import call_command
call_command("collectstatic", "--noinput", verbosity=0)
from django.test import Client
client = Client()
worker, manifest = client.get("/sw.js"), client.get("/manifest.webmanifest")
body = worker.content.decode()
config = json.loads(body.split("const CONFIG = ", 1)[1].split(";\\n", 1)[0])
print(json.dumps({"worker": worker.status_code, "manifest": manifest.status_code,
                  "config": config, "icons": [i["src"] for i in manifest.json()["icons"]]}))
"""

OFFLINE_TITLE = {"bn": "আপনি অফলাইনে আছেন", "en": "You are offline"}
LUDO_RULES_LINK = {"bn": "লুডু কীভাবে খেলবেন", "en": "How to play Ludo"}
LIVE_PREFIXES = ("/r/", "/api/", "/ws/", "/admin/", "/accounts/")


class AppUser(Player):
    """A player with a Chromium profile on disk, at phone size, in ``lang``:
    Chromium installs apps only outside incognito, which every context that
    ``browser.new_context`` makes is. The rest (start, create_room, shoot) is
    the browser tests' Player."""

    def __init__(self, playwright, chromium_path: str, profile, base_url: str, lang: str):
        self.base_url, self.lang, self.name = base_url, lang, ""
        self.context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS,
            viewport=PHONE, locale=LOCALES[lang], has_touch=True,
        )
        self.page = self.context.pages[0] if self.context.pages else self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.worker_fetches: list[str] = []  # the service worker's own (see ``playwright``)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.context.on("request", self.note_request)

    def note_request(self, request) -> None:
        self.requests.append(request.url)
        if request.service_worker is not None:
            self.worker_fetches.append(request.url)

    def start(self, name: str) -> AppUser:
        self.name = name
        return super().start()


@pytest.fixture(scope="module")
def playwright():
    # Playwright reports what a service worker fetches only when asked, by its
    # driver's environment (docs: "Service Worker Network Events", experimental).
    with mock.patch.dict(os.environ, {"PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS": "1"}):
        manager = sync_playwright()
        running = manager.__enter__()
    try:
        yield running
    finally:
        manager.__exit__(None, None, None)


@pytest.fixture
def app_user(playwright, chromium_path, server, tmp_path):
    made: list[AppUser] = []

    def make(lang: str) -> AppUser:
        user = AppUser(playwright, chromium_path, tmp_path / f"profile-{lang}",
                       server.base_url, lang)
        made.append(user)
        return user

    yield make
    for user in made:
        with contextlib.suppress(Exception):
            user.context.close()
        assert not user.errors, f"JavaScript errors: {user.errors}"
        foreign = [u for u in user.requests
                   if not u.startswith((server.base_url, server.ws_url, "data:"))]
        assert not foreign, f"third-party requests: {foreign}"


def test_in_production_the_worker_and_manifest_name_the_hashed_static_files(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "0",
           "DJANGO_SECRET_KEY": "production-probe-" + "k" * 40,
           "DJANGO_ALLOWED_HOSTS": "testserver", "DJANGO_SECURE_SSL_REDIRECT": "0",
           "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3"}
    run = subprocess.run([python_for_servers(), "-c", PRODUCTION_PROBE, str(tmp_path / "static")],
                         cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["worker"] == 200 and found["manifest"] == 200
    config = found["config"]
    assert config["staticHashed"] is True and config["staticPrefix"] == "/static/"
    hashed = re.compile(r"^/static/.+\.[0-9a-f]{12}\.(css|js|svg|png)$")
    assert config["assets"] and all(hashed.match(a) for a in config["assets"]), config
    assert all(hashed.match(src) for src in found["icons"]), found["icons"]
    assert {"/r/", "/api/", "/ws/", "/admin/", "/accounts/"} <= set(config["never"])


def wait_for_worker(page, lang: str, budget: float = 120.0) -> list[str]:
    """Wait until the service worker controls the page and has stored the pages
    in ``lang``; return the paths in its cache. The budget is a deadline, not a
    wait: installing stores every static file and rules page, which on a loaded
    CI machine (two workers, coverage in every daphne) took over 30 s once.

    A document whose navigation began while the worker was still installing is
    not claimed by it (clients.claim() takes the clients that exist when it
    runs), so such a page stays uncontrolled until the next one, as it would for
    a player. Once the worker is active, an uncontrolled page is reloaded: the
    player's next visit, which the worker does control."""
    deadline = time.monotonic() + budget
    while True:
        found = page.evaluate("""async () => {
            const registration = await navigator.serviceWorker.getRegistration();
            const active = !!(registration && registration.active
                              && registration.active.state === 'activated');
            if (!navigator.serviceWorker.controller) return {active, controlled: false};
            const marker = await caches.match('/__language');
            if (!marker) return {active, controlled: true};
            const lang = await marker.text();
            const paths = [];
            for (const name of await caches.keys()) {
                const cache = await caches.open(name);
                for (const request of await cache.keys()) paths.push(new URL(request.url).pathname);
            }
            return {active, controlled: true, lang, paths};
        }""")
        if found.get("lang") == lang:
            return found["paths"]
        assert time.monotonic() < deadline, f"the service worker is not ready: {found}"
        if found["active"] and not found["controlled"]:
            page.reload()
        else:
            page.wait_for_timeout(200)  # poll interval; the condition above decides


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_chromium_can_install_the_app_and_it_opens_the_home_page(lang, app_user, screenshots):
    player = app_user(lang).start("Installer")
    page = player.page
    wait_for_worker(page, lang)
    # The first visit stores each page once: the worker notes the language of
    # what it stored, and the page's word on its language fetches nothing again.
    rules = [url for url in player.worker_fetches if url.endswith("/rules/ludo/")]
    assert rules == [player.base_url + "/rules/ludo/"], player.worker_fetches
    cdp = player.context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert errors == [], errors

    manifest = cdp.send("Page.getAppManifest")
    assert not manifest.get("errors"), manifest.get("errors")
    data = json.loads(manifest["data"])
    assert data["display"] == "standalone" and data["theme_color"] == "#a3341f"
    assert "খেলাঘর" in data["name"] and "Khelaghor" in data["name"]
    sizes = {icon["sizes"] for icon in data["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    for icon in data["icons"]:
        response = page.request.get(urljoin(manifest["url"], icon["src"]))
        assert response.ok and response.headers["content-type"].startswith(icon["type"])

    # The installed app opens its start_url: the home page, ready to play.
    start = urljoin(manifest["url"], data["start_url"])
    assert start == player.base_url + "/"
    page.goto(start)
    expect(page.locator("#create")).to_be_visible()
    player.shoot(screenshots, "installable-home")


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_offline_the_app_shows_a_friendly_page_and_the_rules_but_never_a_live_room(
    lang, app_user, screenshots
):
    player = app_user(lang).start("Offline")
    page = player.page
    # A live room visited online first: it must not come back from a cache.
    code = player.create_room("snakes", 2)
    page.goto(player.base_url + "/")
    paths = wait_for_worker(page, lang)
    assert "/offline/" in paths and "/rules/ludo/" in paths
    assert not [p for p in paths if p.startswith(LIVE_PREFIXES)], paths

    player.context.set_offline(True)
    try:
        page.goto(player.base_url + "/")
        offline = page.get_by_test_id("offline")
        expect(offline.locator("h1")).to_have_text(OFFLINE_TITLE[lang])
        assert page.evaluate(LOW_CONTRAST) == []
        player.shoot(screenshots, "offline")

        offline.get_by_role("link", name=LUDO_RULES_LINK[lang], exact=True).click()
        page.wait_for_url("**/rules/ludo/")
        expect(page.locator(".rules-page h1")).to_be_visible()
        assert page.locator(".rules-page").inner_text().count("\n") > 10  # the whole text
        player.shoot(screenshots, "offline-rules-ludo")

        page.goto(f"{player.base_url}/r/{code}/")
        expect(page.get_by_test_id("offline")).to_be_visible()
        expect(page.get_by_test_id("room-code")).to_have_count(0)
        # A room's page reloaded offline: "Try again" opens the room again, not
        # the home page (a drill lost its table that way) ...
        expect(page.get_by_test_id("offline-retry")).to_have_attribute(
            "href", f"{player.base_url}/r/{code}/")
    finally:
        player.context.set_offline(False)
    # ... and the network coming back opens it by itself.
    expect(page.get_by_test_id("room-code")).to_have_text(code, timeout=20_000)
    assert page.url == f"{player.base_url}/r/{code}/"
    paths = wait_for_worker(page, lang)
    assert not [p for p in paths if p.startswith(LIVE_PREFIXES)], paths
