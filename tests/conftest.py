"""What every test shares: real services and servers (tests/fixtures.py), and the
rules that let the suite run in parallel (pytest-xdist, `make test`)."""

import os

import pytest

from tests import servers, services

pytest_plugins = ["tests.fixtures"]

# The turn clocks pause when no process has beaten for a while (rooms.services.
# clocks_beat): tests stop and start servers, and move clocks, all the time, so
# the pause is off here, in this process and in every server it starts; the tests
# of the pause turn it on themselves.
os.environ["KHELAGHOR_CLOCKS_PAUSE_AFTER"] = "0"


def pytest_configure(config):
    # Under xdist each worker is its own process: give it its own PostgreSQL
    # database, Redis database and channel prefix before any test reads them.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    try:
        if worker:
            services.use_worker_services(worker)
        elif isinstance(workers := getattr(config.option, "numprocesses", None), int):
            # Say so once, before starting workers that would each fail the same way.
            for n in range(workers):
                services.redis_url_for_worker(
                    services.redis_url(), f"gw{n}", os.environ.get("KHELAGHOR_TEST_REDIS_DBS", "")
                )
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    # Pages load the JavaScript catalogue as a static file that is generated,
    # not committed (rooms/management/commands/js_catalogue.py): make sure it
    # exists and is current before any server or browser starts.
    _write_js_catalogues()
    from django.conf import settings

    settings.KHELAGHOR_CLOCKS_PAUSE_AFTER = 0.0  # read before this module set it
    if worker or not getattr(config.option, "numprocesses", None):
        # This process runs tests (an xdist controller only starts workers, which
        # must be measured): under coverage, measure only the site's subprocesses.
        servers.measure_only_site_processes()


def _write_js_catalogues() -> None:
    import django

    django.setup()
    from rooms.management.commands.js_catalogue import write_catalogues

    write_catalogues()


def uses_browser(item) -> bool:
    return "browser" in getattr(item, "fixturenames", ())


def waits_long(item) -> bool:
    """Marked as starting servers or as slow: the tests that take seconds, much of
    it waiting (bot delays, turn timers, a killed process's presence expiring)."""
    return any(item.get_closest_marker(name) for name in ("integration", "slow"))


def pytest_collection_modifyitems(config, items):
    # Browser tests first and together: one Chromium start per process (see
    # SharedChromium); then the other long tests; the many quick ones last. The
    # long ones then begin early, while the other worker is busy, and the run
    # ends on quick tests that --dist worksteal spreads evenly, instead of one
    # worker finishing a minute-long test alone. A stable sort: each module's
    # tests keep their order (a module's long tests may move ahead of its quick
    # ones; no such module has module-scoped fixtures). Every worker sorts the
    # same way, as xdist requires.
    items.sort(key=lambda item: (not uses_browser(item), not waits_long(item)))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if not uses_browser(item):
        stop_chromium()


def pytest_sessionfinish(session, exitstatus):
    stop_chromium()


def stop_chromium() -> None:
    # Imported here, after pytest_plugins has loaded (and assert-rewritten) it.
    from tests.fixtures import CHROMIUM

    CHROMIUM.stop()
