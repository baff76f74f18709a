"""The floor for bench/bench_load.py: a Channels consumer that only broadcasts.

``/ws/bare/<table>/<seat>/`` joins the table's group. A text frame from a
client, ``{"version": n, "size": bytes, "seats": n}``, makes the consumer send the group
one message with a payload per seat and one for spectators, each ``size``
bytes, as the product's ``room.update`` does; every consumer forwards its own
seat's payload. No database, no rules, no state: what is left is daphne, the
channel layer and JSON. Run it as ``daphne bench.bare_asgi:application`` with
DJANGO_SETTINGS_MODULE=bench.bare_settings.
"""

import json
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.bare_settings")

import django  # noqa: E402

django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402


class BareBroadcast(AsyncWebsocketConsumer):
    async def connect(self):
        kwargs = self.scope["url_route"]["kwargs"]
        self.group = f"bare.{kwargs['table']}"
        self.seat = kwargs["seat"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        asked = json.loads(text_data)
        version, size = asked["version"] + 1, asked["size"]
        payloads = {}
        for who in [str(s) for s in range(asked["seats"])] + ["spectator"]:
            head = {"type": "update", "version": version, "seat": who, "pad": ""}
            room = size - len(json.dumps(head, separators=(",", ":")))
            payloads[who] = {**head, "pad": "x" * max(0, room)}
        await self.channel_layer.group_send(
            self.group, {"type": "bare.frame", "payloads": payloads}
        )

    async def bare_frame(self, message):
        payload = message["payloads"][self.seat]
        await self.send(text_data=json.dumps(payload, separators=(",", ":")))


async def healthz(scope, receive, send):
    if scope["type"] == "lifespan":
        return
    await receive()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b'{"ok": true}'})


application = ProtocolTypeRouter({
    "http": healthz,
    "websocket": URLRouter([
        re_path(r"^ws/bare/(?P<table>\d+)/(?P<seat>\d+)/$", BareBroadcast.as_asgi()),
    ]),
})
