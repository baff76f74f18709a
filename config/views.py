"""The health check used by nginx and systemd (the home page is in ``config.pages``)."""

import asyncio
import logging
import uuid

from asgiref.sync import async_to_sync, iscoroutinefunction, markcoroutinefunction, sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from config.logfilters import DATABASE_AWAY_NOTE, REDIS_AWAY_NOTE
from rooms.timers import get_timer_backend

# Probes come every few seconds from each balancer and systemd: while a part is
# away, each would log its warning. The warnings carry their outage, and the
# settings' filters on this logger show the first, then a line a minute.
logger = logging.getLogger(__name__)

# A health check that hangs is worse than one that says "down": a probe with a
# short timeout must get a 503 naming the part, not a timeout of its own (a
# PostgreSQL that does not answer kept the check waiting 10 s, the pool's wait).
CHANNEL_LAYER_TIMEOUT = 3.0
DATABASE_TIMEOUT = 3.0


def _check_database() -> str:
    # On a worker thread of its own (below): it gives its connection back itself.
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            row = cursor.fetchone()
    finally:
        connection.close()
    if row is None or row[0] != 1:
        return "unexpected reply to SELECT 1"
    return "ok"


async def _check_channel_layer() -> str:
    layer = get_channel_layer()
    if layer is None:
        return "not configured"
    # A fresh channel per call, so two processes checking at once never read
    # each other's probe and a leftover message cannot fake a pass.
    channel = await layer.new_channel(prefix="healthz.")
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz.probe", "token": token})
    message = await asyncio.wait_for(layer.receive(channel), CHANNEL_LAYER_TIMEOUT)
    if message.get("token") != token:
        return "received someone else's message"
    return "ok"


@never_cache
async def healthz(request):
    checks = {}
    try:
        # Not this request's database thread: a check left hanging there would
        # hold the request's end (and its connection) after the probe's answer.
        check = sync_to_async(_check_database, thread_sensitive=False)
        checks["database"] = await asyncio.wait_for(check(), DATABASE_TIMEOUT)
    except TimeoutError:
        logger.warning("healthz: the database did not answer within %ss", DATABASE_TIMEOUT,
                       extra=DATABASE_AWAY_NOTE)
        checks["database"] = "error: timeout"
    except Exception as exc:  # any failure here means "not healthy", reported, not raised
        logger.warning("healthz: database check failed: %s", exc, extra=DATABASE_AWAY_NOTE)
        checks["database"] = f"error: {type(exc).__name__}"
    try:
        checks["channel_layer"] = await _check_channel_layer()
    except TimeoutError:
        logger.warning("healthz: channel layer did not answer within %ss", CHANNEL_LAYER_TIMEOUT,
                       extra=REDIS_AWAY_NOTE)
        checks["channel_layer"] = "error: timeout"
    except Exception as exc:
        logger.warning("healthz: channel layer check failed: %s", exc, extra=REDIS_AWAY_NOTE)
        checks["channel_layer"] = f"error: {type(exc).__name__}"
    try:
        timers = type(get_timer_backend()).__name__
    except Exception as exc:
        logger.warning("healthz: timer backend could not be loaded: %s", exc)
        timers = f"error: {type(exc).__name__}"
        checks["timers"] = timers
    ok = all(value == "ok" for value in checks.values())
    body = {"ok": ok, **checks, "timers": timers}
    return JsonResponse(body, status=200 if ok else 503)


class HealthzBeforeHostCheck:
    """Answers /healthz before anything reads the Host header.

    Load balancers and systemd probe each process on the loopback
    (``curl http://127.0.0.1:8001/healthz``), so their Host is not the site's
    name; Django's host check (CommonMiddleware reads the host) answered them
    400 with DJANGO_ALLOWED_HOSTS set as deployed. The check protects the URLs a
    page builds from the host; this answer builds none. In MIDDLEWARE before
    CommonMiddleware, after the security headers' middlewares."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        if request.path_info == "/healthz":
            return async_to_sync(healthz)(request)
        return self.get_response(request)

    async def _acall(self, request):
        if request.path_info == "/healthz":
            return await healthz(request)
        return await self.get_response(request)
