#!/usr/bin/env python3
"""How heavy is a table page's first load? Budget: 100 KB compressed, everything in,
in Bengali (the heavier language: its JavaScript catalogue is ten times English's).

Starts a real daphne on a scratch SQLite database, seats a guest at a Ludo table
with computer players, then opens the table page in a fresh browser context
(empty cache) and records every response. Static files are counted as
production serves them: nginx's gzip_static sends the .gz that collectstatic
wrote (gzip -9; nginx has no brotli module in docs/deploy.md, so the .br files
are not counted). Dynamic responses (the HTML, JSON) are counted as the server
sent them: gzip (level 6, Django's GZipMiddleware) when the response says
Content-Encoding: gzip, raw otherwise.

    python bench/bench_page_weight.py
"""

from __future__ import annotations

import gzip
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

BUDGET = 100 * 1024
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@dataclass
class Item:
    url: str
    raw: int
    gzip: int
    brotli: int | None
    static: bool
    encoded: bool = False  # the server sent it gzipped (dynamic responses)
    gzip6: int = 0

    @property
    def served(self) -> int:
        """Bytes on the wire as production serves it."""
        if self.static:
            return min(self.gzip, self.raw)
        return self.gzip6 if self.encoded else self.raw

    @property
    def best(self) -> int:
        return min(x for x in (self.gzip, self.brotli, self.raw) if x is not None)


def _compress(body: bytes) -> tuple[int, int | None]:
    gz = len(gzip.compress(body, compresslevel=9))
    try:
        import brotli
    except ImportError:
        return gz, None
    return gz, len(brotli.compress(body, quality=11))


def measure(browser, base_url: str) -> list[Item]:
    """Seat a guest at a started Ludo table, then load its page once with an empty cache."""
    setup = browser.new_context(viewport={"width": 360, "height": 640}, locale="bn-BD")
    page = setup.new_page()
    page.set_default_timeout(20_000)
    page.goto(base_url + "/")
    page.fill("#nickname-input", "Rumi")
    page.locator("#nickname button[type=submit]").click()
    page.check("input[name=game][value=ludo]")
    page.select_option("#seats-select", "4")
    page.get_by_test_id("create-room").click()
    page.wait_for_url(re.compile(r"/r/[A-Z0-9]{4}/$"))
    page.wait_for_selector("#net-status[data-state=online]", state="attached")
    page.get_by_test_id("fill-bots").click()
    page.locator("[data-testid=start]:enabled").click()
    page.wait_for_selector("#room[data-view=table]")
    table_url = page.url
    cookies = setup.cookies()
    setup.close()

    fresh = browser.new_context(viewport={"width": 360, "height": 640}, locale="bn-BD")
    fresh.add_cookies(cookies)
    page = fresh.new_page()
    responses = []
    page.on("response", lambda response: responses.append(response))
    page.goto(table_url, wait_until="networkidle")
    page.wait_for_selector("#room[data-view=table]")
    items = []
    for response in responses:
        try:
            body = response.body()
        except Exception:  # a redirect or a socket upgrade has no body to count
            continue
        gz, br = _compress(body)
        encoded = response.headers.get("content-encoding", "") == "gzip"
        items.append(Item(response.url, len(body), gz, br, "/static/" in response.url,
                          encoded, len(gzip.compress(body, compresslevel=6))))
    fresh.close()
    return items


def report(items: list[Item]) -> int:
    total = sum(i.served for i in items)
    best = sum(i.best for i in items)
    print(f"{'bytes raw':>10} {'gzip':>8} {'brotli':>8} {'served':>8}  url")
    for i in items:
        print(f"{i.raw:>10} {i.gzip:>8} {i.brotli if i.brotli is not None else '-':>8} "
              f"{i.served:>8}  {i.url}{'  (sent gzipped)' if i.encoded else ''}")
    print(f"table page first load: {total / 1024:.1f} KB as served (static as nginx's "
          f"gzip_static, dynamic as sent), {best / 1024:.1f} KB with brotli everywhere; "
          f"budget {BUDGET / 1024:.0f} KB")
    return total


def main() -> int:
    from playwright.sync_api import sync_playwright

    from tests.servers import free_port, run_daphne, run_manage
    from tests.services import chromium_path

    database = Path(tempfile.mkdtemp(prefix="khelaghor-weight-")) / "db.sqlite3"
    env = {"DATABASE_URL": f"sqlite:///{database}", "KHELAGHOR_BOT_DELAY": "0.5"}
    run_manage("migrate", "--noinput", env=env)
    with run_daphne(free_port(), env) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            total = report(measure(browser, server.base_url))
        finally:
            browser.close()
    if total > BUDGET:
        print(f"OVER BUDGET by {(total - BUDGET) / 1024:.1f} KB")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
