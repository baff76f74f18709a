"""Draw the installable app's PNG icons from our SVGs with Debian's Chromium.

    .venv/bin/python scripts/make_app_icons.py

The SVGs in static/img/app/ are the source; the PNGs next to them are committed
(the manifest needs raster icons of exact sizes). Chromium is found as the tests
find it (KHELAGHOR_CHROMIUM, else /usr/bin/chromium); nothing is downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import sync_playwright

APP_ICONS = Path(__file__).resolve().parent.parent / "static" / "img" / "app"
# (source SVG, output PNG, size in pixels)
ICONS = [
    ("icon.svg", "icon-192.png", 192),
    ("icon.svg", "icon-512.png", 512),
    ("icon-maskable.svg", "icon-maskable-512.png", 512),
    ("icon.svg", "apple-touch-icon-180.png", 180),
]


def main() -> None:
    chromium = os.environ.get("KHELAGHOR_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        for source, target, size in ICONS:
            svg = (APP_ICONS / source).read_text()
            svg = svg.replace('width="512" height="512"', f'width="{size}" height="{size}"')
            page.set_viewport_size({"width": size, "height": size})
            page.set_content(
                "<!DOCTYPE html><html><head><style>html,body{margin:0;background:transparent}"
                f"svg{{display:block}}</style></head><body>{svg}</body></html>"
            )
            page.screenshot(path=str(APP_ICONS / target), omit_background=True,
                            clip={"x": 0, "y": 0, "width": size, "height": size})
            print(f"{target}: {size}x{size}")
        browser.close()


if __name__ == "__main__":
    main()
