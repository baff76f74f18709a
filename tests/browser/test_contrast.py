"""Text contrast meets WCAG AA on every page a player sees, in both languages,
measured in the browser from computed colours (4.5:1, or 3:1 for large text).
Disabled controls are exempt, as WCAG says."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

# Every visible element with its own text: colour against the first opaque
# background behind it. Returns the failures.
LOW_CONTRAST = r"""
() => {
  function parse(css) {
    const m = css.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(",").map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  }
  function luminance(c) {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  }
  function background(el) {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  }
  const failures = [];
  for (const el of document.querySelectorAll("body *")) {
    const text = [...el.childNodes].filter((n) => n.nodeType === 3)
      .map((n) => n.textContent.trim()).join("");
    if (!text) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    const st = getComputedStyle(el);
    if (st.visibility === "hidden" || st.display === "none") continue;
    if (parseFloat(st.opacity) < 0.5 || el.closest("svg")) continue;
    if (el.disabled || el.closest("[disabled]") || el.closest("[aria-disabled=true]")) continue;
    const fg = luminance(parse(st.color));
    const bg = luminance(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    const size = parseFloat(st.fontSize);
    const large = size >= 24 || (parseInt(st.fontWeight) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) {
      failures.push({ text: text.slice(0, 30), ratio: ratio.toFixed(2), color: st.color });
    }
  }
  return failures;
}
"""


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["bn", "en"])
def test_text_contrast_is_aa_everywhere_a_player_looks(players, lang):
    host = players("Tanvir", lang)
    host.start()
    page = host.page
    failures = {}
    for path in ["/", "/rules/liars-dice/", "/rules/ludo/", "/rules/snakes-and-ladders/"]:
        page.goto(host.base_url + path)
        failures[path] = page.evaluate(LOW_CONTRAST)
    host.start()
    host.create_room("liars_dice", 3)
    failures["lobby"] = page.evaluate(LOW_CONTRAST)
    page.get_by_test_id("fill-bots").click()
    page.get_by_test_id("start").click()
    expect(page.locator("#room")).to_have_attribute("data-view", "table")
    failures["table"] = page.evaluate(LOW_CONTRAST)
    assert not any(failures.values()), failures
