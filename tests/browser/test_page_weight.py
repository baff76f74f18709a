"""A table page's first load, in Bengali, stays within 100 KB compressed
(bench/bench_page_weight.py): the HTML and JSON go out gzipped, and the
JavaScript catalogue is a static file rather than /jsi18n/."""

import pytest

from tests.servers import load_bench

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def test_a_bengali_table_page_first_load_is_at_most_100_kb_compressed(browser, server):
    bench = load_bench("bench_page_weight")
    items = bench.measure(browser, server.base_url)
    total = bench.report(items)  # prints every response's bytes (pytest -s shows them)
    print(f"compressed first load: {total} bytes ({total / 1024:.1f} KB)")
    urls = [item.url for item in items]
    assert any("/r/" in url for url in urls) and any(url.endswith(".js") for url in urls)
    assert all(url.startswith(server.base_url) for url in urls), "third-party request"
    page = next(item for item in items if "/r/" in item.url)
    assert page.encoded, "the table page's HTML was sent uncompressed"
    assert not any("/jsi18n/" in url for url in urls), "the catalogue is a static file now"
    assert any(url.endswith("/static/js/i18n/bn.js") for url in urls)
    assert total <= bench.BUDGET, f"{total / 1024:.1f} KB is over the 100 KB budget"
