"""The room socket takes an Origin of this very site only: same host and port,
and https exactly when the socket is secure (wss, or https at the proxy)."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application
from tests.rooms.test_consumer import aguest

pytestmark = pytest.mark.django_db(transaction=True)


async def opens(origin: str | None, *, host: str = "testserver", forwarded_proto: str = "",
                scheme: str = "ws") -> bool:
    key = await aguest("Rumi")
    headers = [(b"host", host.encode()), (b"cookie", f"sessionid={key}".encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if forwarded_proto:
        headers.append((b"x-forwarded-proto", forwarded_proto.encode()))
    socket = WebsocketCommunicator(application, "/ws/rooms/ZZZZ/", headers=headers)
    socket.scope["scheme"] = scheme
    connected, _ = await socket.connect()
    await socket.disconnect()
    return connected


async def test_a_plain_socket_takes_its_own_http_origin_only():
    assert await opens("http://testserver")
    assert not await opens("https://testserver")  # another scheme is another site
    assert not await opens("http://testserver:8443")  # and so is another port
    assert not await opens("http://evil.example")
    assert not await opens(None)


async def test_a_secure_socket_takes_its_own_https_origin_only():
    assert await opens("https://testserver", scheme="wss")
    assert await opens("https://testserver:443", scheme="wss")
    assert not await opens("http://testserver", scheme="wss")


async def test_behind_the_proxy_the_forwarded_scheme_counts(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert await opens("https://testserver", forwarded_proto="https")
    assert not await opens("http://testserver", forwarded_proto="https")
    assert await opens("http://testserver", forwarded_proto="http")
