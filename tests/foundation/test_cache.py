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


def test_the_counters_go_on_in_the_process_while_redis_is_away_and_come_back(monkeypatch):
    """config.ratelimit.Counters over a Redis cache whose server is not there
    (a port nothing listens on): every operation answers from the process's
    own memory, Redis is tried again only every few seconds, and once it
    answers the shared counts are used again."""
    import socket

    from config import ratelimit

    with socket.socket() as probe:  # a free port: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    away = RedisCache(f"redis://127.0.0.1:{port}/0", {
        "KEY_PREFIX": f"test-cache-{uuid.uuid4().hex}",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}})
    counters = ratelimit.Counters(away)
    now = [1000.0]
    monkeypatch.setattr(ratelimit, "monotonic", lambda: now[0])
    tried = []
    real_get = away.get
    monkeypatch.setattr(away, "get", lambda *args: tried.append(args) or real_get(*args))

    assert counters.get("window") is None  # tried Redis, failed, answered here
    assert counters.add("window", 1, 30) is True
    assert counters.incr("window") == 2
    counters.set("opened", 1234.5, 30)
    assert counters.get("window") == 2 and counters.get("opened") == 1234.5
    assert len(tried) == 1  # one failure, then the process's memory for a while

    now[0] += ratelimit.TRY_SHARED_AGAIN_AFTER
    assert counters.get("window") == 2  # tried again, still away
    assert len(tried) == 2


def test_the_counters_use_redis_when_it_answers(redis_service):
    from config import ratelimit

    shared = RedisCache(redis_service, {"KEY_PREFIX": f"test-cache-{uuid.uuid4().hex}"})
    counters = ratelimit.Counters(shared)
    key = f"window-{uuid.uuid4().hex}"
    try:
        assert counters.add(key, 1, 30) is True
        assert counters.incr(key) == 2
        assert shared.get(key) == 2  # counted where every process counts
        assert counters.local.get(key) is None
    finally:
        shared.delete_many([key])
