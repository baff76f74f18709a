"""ASGI entry point: plain HTTP goes to Django, WebSockets to the rooms' consumers.

Django must be set up (get_asgi_application) before the routing is imported,
because the consumers import models.
"""

import asyncio
import gc
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import CookieMiddleware, InstanceSessionWrapper  # noqa: E402

from config import frames  # noqa: E402
from rooms import ticker  # noqa: E402
from rooms.consumers import seats_offline_for_stop  # noqa: E402
from rooms.routing import websocket_urlpatterns  # noqa: E402

# Frames over the server's size limit get too_large and close 4009, not a
# dropped connection (config/frames.py).
frames.install()


class SocketSessionMiddleware:
    """Channels' ``SessionMiddleware`` for sockets: the visitor's session in
    the scope, and the socket's ``send`` left as it is. Channels wraps ``send``
    to save the session before an ``http.response.start``, which a socket never
    sends, but the wrapper reads the session's state on every frame first: 2 %
    of a server's CPU under load (docs/performance.md, round 8). The socket
    saves the session itself whenever it changes it (a new visitor, a
    nickname: rooms.consumers), as it had to before."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        session = InstanceSessionWrapper(scope, send)
        await session.resolve_session()
        return await self.inner(session.scope, receive, send)


router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # The origin check stops other sites from opening sockets with a visitor's
        # session cookie; then the session (seats), as Channels'
        # AuthMiddlewareStack brings it, without its wrapper around send. The
        # signed-in user is found by the room socket itself, in the same trip to
        # a database thread as its room (rooms.consumers._door).
        "websocket": AllowedHostsOriginValidator(
            CookieMiddleware(SocketSessionMiddleware(URLRouter(websocket_urlpatterns)))
        ),
    }
)


# Garbage collection (docs/performance.md). With 1,000 sockets a process holds
# millions of objects, and collecting the oldest generation paused the event
# loop for 0.2-0.5 s, several times a minute under load. Objects made while
# starting up are frozen out of collections, and the oldest generation is
# collected after 1,000 middle ones (minutes under load) instead of 10.
gc.freeze()
gc.set_threshold(700, 10, 1000)


def _start_ticker_with_daphne() -> None:
    """Start the turn-timer loop as soon as daphne's event loop runs, not with
    the first request: after a restart the overdue deadlines must fire even if
    no player has come back yet. daphne does not speak the ASGI lifespan
    protocol, but it installs Twisted's asyncio reactor before it imports this
    module, and a call the reactor schedules runs inside its running loop."""
    reactor = sys.modules.get("twisted.internet.reactor")
    if reactor is None:
        return  # not daphne: lifespan or the first request starts the loop
    from twisted.internet.asyncioreactor import AsyncioSelectorReactor

    if isinstance(reactor, AsyncioSelectorReactor):
        reactor.callLater(0, ticker.ensure_started)
        # Before daphne closes its sockets at a stop: their seats are written
        # offline (rooms.consumers.seats_offline_for_stop). Daphne's own
        # trigger, which would cancel the consumers, fails on a connection
        # that has no application yet (a kept-alive HTTP connection), and
        # would not run their disconnect anyway. Twisted waits for the
        # Deferred before it goes on.
        reactor.addSystemEventTrigger("before", "shutdown", _seats_offline_for_stop)


def _seats_offline_for_stop():
    from twisted.internet.defer import Deferred  # daphne's Twisted, as above

    return Deferred.fromFuture(asyncio.ensure_future(seats_offline_for_stop()))


_start_ticker_with_daphne()


async def application(scope, receive, send):
    """The router, plus the turn-timer loop: started at start-up (daphne: see
    above; servers that speak ASGI lifespan, such as uvicorn: at
    ``lifespan.startup``), and checked on every request and socket, which
    restarts it should it ever have stopped."""
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    ticker.ensure_started()
    return await router(scope, receive, send)


async def _lifespan(receive, send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            ticker.ensure_started()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await seats_offline_for_stop()
            await send({"type": "lifespan.shutdown.complete"})
            return
