"""Placeholder room consumer: joins the room's group and relays its events.

Temporary scaffolding so the foundation's multi-process test has something to
talk to; the rooms work replaces it with the real protocol (docs/protocol.md).
"""

from channels.generic.websocket import AsyncJsonWebsocketConsumer


def room_group(code: str) -> str:
    return f"room.{code.upper()}"


class RoomConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.group_name = room_group(self.scope["url_route"]["kwargs"]["code"])
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group_name, self.channel_name)

    async def room_event(self, event):
        await self.send_json(event["payload"])
