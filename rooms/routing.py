"""WebSocket URLs for rooms; a room code is four letters.

The path takes any segment, not only four letters: a malformed code is
answered like an unknown one (``not_found``, close 4004) by the consumer,
instead of failing the handshake with an HTTP 500 for want of a route.
"""

from django.urls import re_path

from rooms import consumers

websocket_urlpatterns = [
    re_path(r"^ws/rooms/(?P<code>[^/]*)/$", consumers.RoomConsumer.as_asgi()),
]
