"""The Redis cache (config/cache.py) on a real Redis: one client per pool,
and every operation the failure windows use (config/ratelimit.py) still
answers as Django's does."""

from __future__ import annotations

import threading
import uuid

from config.cache import RedisCache


def test_the_cache_keeps_one_client_and_counts_as_djangos(redis_service):
    cache = RedisCache(redis_service, {"KEY_PREFIX": f"test-cache-{uuid.uuid4().hex}"})
    client = cache._cache.get_client()
    assert cache._cache.get_client(write=True) is client  # one server: one pool, one client
    try:
        assert cache.get("window") is None
        assert cache.add("window", 1, 30) is True
        assert cache.add("window", 1, 30) is False  # a window already open is not reset
        assert cache.incr("window") == 2
        cache.set("opened", 1234.5, 30)
        assert cache.get("window") == 2 and cache.get("opened") == 1234.5
        assert client.ttl(cache.make_key("window")) > 0  # windows still expire
    finally:
        cache.delete_many(["window", "opened"])


def test_threads_share_the_kept_client(redis_service):
    cache = RedisCache(redis_service, {"KEY_PREFIX": f"test-cache-{uuid.uuid4().hex}"})
    clients, errors = [], []

    def count() -> None:
        try:
            for _ in range(50):
                cache.add("shared", 0, 30)
                cache.incr("shared")
            clients.append(cache._cache.get_client())
        except Exception as exc:  # reported below: a thread's error is not raised
            errors.append(exc)

    threads = [threading.Thread(target=count) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert cache.get("shared") == 200  # no increment lost between threads
        assert len({id(c) for c in clients}) == 1
    finally:
        cache.delete("shared")
