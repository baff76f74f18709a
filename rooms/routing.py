"""WebSocket URLs for rooms; a room code is four letters."""

from django.urls import re_path

from rooms import consumers

websocket_urlpatterns = [
    re_path(r"^ws/rooms/(?P<code>[A-Za-z]{4})/$", consumers.RoomConsumer.as_asgi()),
]
