"""Rooms: seats, move logs, WebSocket consumers and turn timers."""
