"""Rooms: seats, move logs, WebSocket consumers and turn timers (skeleton for now)."""
