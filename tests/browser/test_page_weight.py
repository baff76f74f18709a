"""A table page's first load stays within 150 KB (bench/bench_page_weight.py)."""

import importlib.util
import sys

import pytest

from tests.servers import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_page_weight", REPO_ROOT / "bench" / "bench_page_weight.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_a_table_page_first_load_is_at_most_150_kb(browser, server):
    bench = _bench()
    items = bench.measure(browser, server.base_url)
    total = bench.report(items)
    urls = [item.url for item in items]
    assert any("/r/" in url for url in urls) and any(url.endswith(".js") for url in urls)
    assert all(url.startswith(server.base_url) for url in urls), "third-party request"
    assert total <= bench.BUDGET, f"{total / 1024:.1f} KB is over the 150 KB budget"
