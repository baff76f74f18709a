"""Moderation hooks the room services call (bans; see the admin for the rest)."""

from __future__ import annotations


def check_not_banned(actor) -> None:
    """Raise ``errors.Banned`` when the actor's session or account is banned."""
    from . import errors
    from .models import Ban

    if Ban.is_banned(session_key=actor.session_key, user_id=actor.user_id):
        raise errors.Banned("You cannot create or join rooms: a moderator has banned you")
