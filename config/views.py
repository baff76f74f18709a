"""The health check used by nginx and systemd (the home page is in ``config.pages``)."""

import asyncio
import logging
import uuid

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from rooms.timers import get_timer_backend

logger = logging.getLogger(__name__)

# A health check that hangs is worse than one that says "down".
CHANNEL_LAYER_TIMEOUT = 3.0


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        row = cursor.fetchone()
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
        checks["database"] = await sync_to_async(_check_database)()
    except Exception as exc:  # any failure here means "not healthy", reported, not raised
        logger.warning("healthz: database check failed: %s", exc)
        checks["database"] = f"error: {type(exc).__name__}"
    try:
        checks["channel_layer"] = await _check_channel_layer()
    except TimeoutError:
        logger.warning("healthz: channel layer did not answer within %ss", CHANNEL_LAYER_TIMEOUT)
        checks["channel_layer"] = "error: timeout"
    except Exception as exc:
        logger.warning("healthz: channel layer check failed: %s", exc)
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
