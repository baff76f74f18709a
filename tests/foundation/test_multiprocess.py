"""Two daphne processes share rooms through PostgreSQL and Redis.

Players of one room land on different daphne processes behind nginx, so an
event published once must reach sockets on every process. The event is sent
straight into the Redis channel layer from this test, as another process would,
so no test-only route has to exist in the product.
"""

import asyncio
import json

import pytest
from channels_redis.core import RedisChannelLayer
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.servers import free_port, run_daphne, run_manage

pytestmark = [pytest.mark.integration, pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

RECEIVE_TIMEOUT = 10.0


@pytest.fixture(scope="module")
def two_servers(postgres_service, redis_service):
    env = {"DATABASE_URL": postgres_service, "REDIS_URL": redis_service}
    run_manage("migrate", "--noinput", env=env)
    with run_daphne(free_port(), env) as server_a, run_daphne(free_port(), env) as server_b:
        yield server_a, server_b


def room_socket(server, code="ABCD", origin=None):
    return connect(
        f"{server.ws_url}/ws/rooms/{code}/",
        origin=origin or server.base_url,
        proxy=None,
        open_timeout=RECEIVE_TIMEOUT,
    )


def test_both_processes_report_the_shared_services(two_servers):
    import urllib.request

    for server in two_servers:
        with urllib.request.urlopen(f"{server.base_url}/healthz", timeout=5) as response:
            body = json.loads(response.read())
        assert body == {
            "ok": True,
            "database": "ok",
            "channel_layer": "ok",
            "timers": "RedisTimers",
        }


async def test_a_room_event_reaches_sockets_on_both_processes(two_servers, redis_service):
    server_a, server_b = two_servers
    async with room_socket(server_b) as on_b, room_socket(server_a, code="abcd") as on_a:
        # The consumer joins its group before accepting, so once both handshakes are
        # done both sockets are members of room.ABCD in Redis.
        layer = RedisChannelLayer(hosts=[redis_service])
        payload = {"type": "hello", "text": "নমস্কার", "seq": 1}
        try:
            await layer.group_send("room.ABCD", {"type": "room.event", "payload": payload})
        finally:
            await layer.close_pools()
        received_b = json.loads(await asyncio.wait_for(on_b.recv(), RECEIVE_TIMEOUT))
        received_a = json.loads(await asyncio.wait_for(on_a.recv(), RECEIVE_TIMEOUT))
    assert received_b == payload
    assert received_a == payload


async def test_a_socket_from_another_site_is_refused(two_servers):
    server_a, _ = two_servers
    with pytest.raises(InvalidStatus) as refused:
        async with room_socket(server_a, origin="http://evil.example"):
            pass
    assert refused.value.response.status_code == 403
