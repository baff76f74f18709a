"""Computer players' names in the reader's language.

A computer seat is named once, in English, when it is added
(rooms.services.core.seat_bot: "Mitu (AI)"); that name is what the record, the
history and every language's page share. A Bengali page shows it as
"মিতু (এআই)": the name is translated when it is displayed (the template filter
``seat_name`` here; the room page's script can do the same with the djangojs
catalogue), so there are never two names to keep in step.
"""

from __future__ import annotations

from django import template
from django.utils.translation import gettext, gettext_noop

register = template.Library()

# The names computer seats are given, in order of seat (rooms.services.core.seat_bot).
BOT_NAMES = [gettext_noop("Robi"), gettext_noop("Mitu"), gettext_noop("Tuni"),
             gettext_noop("Bablu"), gettext_noop("Shapla"), gettext_noop("Dolon")]
AI_SUFFIX = " (AI)"


def display_name(name: str, kind: str | None = "bot") -> str:
    """A computer seat's name in the active language; any other name as it is."""
    if kind != "bot" or not name.endswith(AI_SUFFIX):
        return name
    base = name[: -len(AI_SUFFIX)]
    if base not in BOT_NAMES:
        return name
    return gettext("%(name)s (AI)") % {"name": gettext(base)}


@register.filter
def seat_name(name: str, kind: str | None = "bot") -> str:
    """``{{ seat.name|seat_name:seat.kind }}``: a computer's name translated."""
    return display_name(str(name or ""), kind)
