"""The one home of the fixtures that start real services: daphne and Chromium.

tests/conftest.py loads this module as a plugin, so every test package sees:

- ``redis_service``, ``postgres_service``, ``chromium_path``: real services found
  (tests/services.py), skipped locally when missing and failed under CI=true;
  after a test that used PostgreSQL, the games it left in progress are stopped
  (``stop_games_left_in_progress``);
- ``server``: one daphne on a migrated SQLite database per test process, shared
  by the browser tests (``server.env`` and ``server.database`` let a test read
  what it wrote or run manage.py against it);
- ``browser``: one Chromium per test process, started when a test first asks for
  it and stopped before any test that does not (see ``SharedChromium``).

Servers with other settings are started with ``tests.servers`` (``sqlite_env``,
``postgres_env``, ``run_daphne``, ``run_daphnes``), never with copies of it.
"""

from __future__ import annotations

import pytest

from tests import services
from tests.servers import free_port, run_daphne, sqlite_env

# Computers act quickly so whole games fit in a test; tests wait on the DOM, never on time.
BROWSER_SERVER_ENV = {"KHELAGHOR_BOT_DELAY": "0.15", "DJANGO_LOG_LEVEL": "WARNING"}


@pytest.fixture(scope="session")
def redis_service() -> str:
    """URL of a Redis that answers (this worker's own database under xdist)."""
    return services.require_redis()


@pytest.fixture(scope="session")
def postgres_service() -> str:
    """URL of a PostgreSQL that answers (this worker's own database under xdist)."""
    return services.require_postgres()


@pytest.fixture(autouse=True)
def stop_games_left_in_progress(request):
    """After every test that uses PostgreSQL, stop the games it started and
    left in progress, passed or failed (``services.stop_games_after``). A worker's
    tests share its database, so a game one test left running was played on by
    the next test's servers: they fired its deadlines and moved its computers on
    the database threads that test was timing (how test_claims once failed,
    2026-12-06). Games made before the test (a module's probe) are left alone."""
    # A module's servers may ask for the database themselves (test_play's
    # ``stacks``): the ``postgres`` mark says so where the fixture list does not.
    if "postgres_service" not in request.fixturenames and not request.node.get_closest_marker(
        "postgres"
    ):
        yield
        return
    url = request.getfixturevalue("postgres_service")
    newest = services.newest_game_id(url)
    yield
    services.stop_games_after(url, newest)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Path of Debian's Chromium for Playwright (never a downloaded browser)."""
    return services.require_chromium()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One daphne for the browser tests of this test process."""
    directory = tmp_path_factory.mktemp("browser-db")
    env = sqlite_env(directory, **BROWSER_SERVER_ENV)
    with run_daphne(free_port(), env) as running:
        # Tests read what the server wrote (a report, a room's id) straight from it,
        # and run manage.py commands against it with this environment.
        running.database = directory / "db.sqlite3"
        running.env = env
        yield running


class SharedChromium:
    """One Chromium for the whole test process, started on first use.

    Sync Playwright keeps an asyncio loop of its own current in this thread while
    it runs; an asyncio test, or Django's ORM (which refuses to run inside a loop),
    would trip over it. So the browser is stopped before any test that does not ask
    for it (tests/conftest.py), and browser tests are run first and together so
    that this happens about once per process.
    """

    def __init__(self) -> None:
        self._playwright = None
        self._browser = None

    def get(self, executable: str):
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            try:
                self._browser = self._playwright.chromium.launch(
                    executable_path=executable, headless=True, args=services.CHROMIUM_ARGS
                )
            except BaseException:
                self.stop()
                raise
        return self._browser

    def stop(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None:
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


CHROMIUM = SharedChromium()


@pytest.fixture
def browser(chromium_path):
    """Debian's Chromium, shared by every browser test of this test process; each
    test makes its own contexts (cookies, storage) and closes them."""
    return CHROMIUM.get(chromium_path)
