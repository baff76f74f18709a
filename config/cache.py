"""Django's Redis cache, with one redis-py client per connection pool.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` for every
call (``get``, ``add``, ``incr``...). Building one fills its table of response
callbacks, some 170 dictionary writes, and cost more CPU than the command it
sent: a room code's guessing check on every socket connect went through it
(docs/performance.md, round 12). A redis-py client is safe to share between
threads (each command takes a connection from the pool), so one per pool is
kept and reused.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

# What redis-py raises while Redis cannot be reached (a restart, an outage):
# the cache, the channel layer and the event loop's own line alike. Those who
# go on without Redis catch this, and nothing else of Redis's.
REDIS_AWAY = (RedisConnectionError, RedisTimeoutError)


class _KeptClients(RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            # Two threads may both build one here; either is as good, and the
            # pool they share is the same.
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = _KeptClients
