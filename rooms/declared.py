"""What the site's pages, forms and scripts read of the game declarations
(games/registry.py): the one place that turns a ``Declaration`` into a form's
choices, a page's context and the facts the browser needs."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from games.base import Declaration
from games.registry import declaration, declarations

# Events the room writes into every game's record, whatever the game
# (docs/record.md): after each game's own event types in the admin's filter.
ROOM_EVENT_TYPES = ("timeout", "takeover", "reclaim", "removed", "aborted")


def title_of(game_id: str) -> str:
    """A game's name in the active language (the admin's rooms, the dashboard);
    an id no game declares, as it is."""
    try:
        return _(declaration(game_id).title)
    except KeyError:
        return game_id


def event_types() -> list[str]:
    """Every record event type, each game's first (in the registry's order)."""
    seen: dict[str, None] = {}
    for declared in declarations():
        seen.update(dict.fromkeys(declared.event_types))
    seen.update(dict.fromkeys(ROOM_EVENT_TYPES))
    return list(seen)


def house_rules_from_form(declared: Declaration, form: QueryDict) -> dict[str, Any]:
    """The create form's house rules: a yes/no rule is its checkbox (a hidden
    "off" goes first, so the last value wins), any other a non-empty text."""
    options: dict[str, Any] = {}
    for rule in declared.house_rules:
        if rule.name not in form:
            continue
        if isinstance(_default(declared, rule.name), bool):
            options[rule.name] = form[rule.name] in ("on", "true", "1")
        elif form[rule.name]:
            options[rule.name] = form[rule.name]
    return options


def _default(declared: Declaration, name: str) -> Any:
    return next((o.default for o in declared.engine.options if o.name == name), None)


def for_page(declared: Declaration) -> dict[str, Any]:
    """One game as the home page's forms show it (titles translated)."""
    return {
        "id": declared.id, "slug": declared.slug, "title": _(declared.title),
        "min": declared.min_players, "max": declared.max_players,
        "default": declared.default_seats, "icon": declared.icon_template,
        "rules_template": declared.rules_template,
        "house_rules": [{"name": r.name, "label": _(r.label),
                         "checked": _default(declared, r.name) is True}
                        for r in declared.house_rules if r.label],
        "seats_hint": ({"from": declared.seats_hint[0], "text": _(declared.seats_hint[1])}
                       if declared.seats_hint else None),
    }


def for_pages() -> list[dict[str, Any]]:
    return [for_page(declared) for declared in declarations()]


def client_facts() -> dict[str, dict[str, Any]]:
    """What the browser needs of each game, emitted once per page as
    ``<script type="application/json" id="kg-games">`` (templatetags/games.py):
    its title (translated), the easier, the standard and the expert computer kinds, the
    house rules a host may toggle (name, label, the engine's default), where its
    records hold dice (verify.js) and the replay's pace."""
    return {
        declared.id: {
            "title": _(declared.title),
            "slug": declared.slug,
            "easy_bot": declared.easy_bot,
            "expert_bot": declared.expert_bot,
            "standard_bot": declared.standard_bot,
            "host_options": [{"name": r.name, "label": _(r.label),
                              "default": _default(declared, r.name)}
                             for r in declared.house_rules if r.label],
            "dice": [{"event": d.event, "field": d.field, "by_seat": d.by_seat}
                     for d in declared.dice_fields],
            "replay_pace_ms": declared.replay_pace_ms,
        }
        for declared in declarations()
    }
