"""Two daphne processes share rooms through PostgreSQL and Redis.

Players of one room land on different daphne processes behind nginx, so an
event published once must reach sockets on every process. The event is sent
straight into the Redis channel layer from this test, as another process would,
so no test-only route has to exist in the product.
"""

import json

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.servers import postgres_env, run_daphnes

pytestmark = [pytest.mark.integration, pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

RECEIVE_TIMEOUT = 10.0


@pytest.fixture(scope="module")
def two_servers(postgres_service, redis_service):
    env = postgres_env(postgres_service, REDIS_URL=redis_service)
    with run_daphnes(env, 2) as (server_a, server_b):
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


async def test_a_room_change_reaches_sockets_on_both_processes(two_servers):
    """A guest joins through process A; the host, connected to process B, sees
    it: the update crossed processes through the Redis channel layer."""
    from tests.room_client import RoomClient

    server_a, server_b = two_servers
    host = RoomClient(server_b.base_url, "Tanvir")
    guest = RoomClient(server_a.base_url, "রুমি")
    host.sign_in()
    guest.sign_in()
    code = host.create_room("snakes", 2)
    await host.connect(code)
    await guest.connect(code.lower())
    try:
        await guest.command({"type": "join"})
        seen = await host.wait_for(
            lambda m: m["type"] == "update"
            and m["room"]["seats"][1]["name"] == "রুমি",
            RECEIVE_TIMEOUT,
        )
        assert seen["events"] == [{"type": "joined", "seat": 1}]
        assert seen["you"]["seat"] == 0
    finally:
        await host.close()
        await guest.close()


async def test_a_socket_from_another_site_is_refused(two_servers):
    server_a, _ = two_servers
    with pytest.raises(InvalidStatus) as refused:
        async with room_socket(server_a, origin="http://evil.example"):
            pass
    assert refused.value.response.status_code == 403
