"""The games of the site, listed in one place: one line per game.

Each listed module declares its game next to its engine (``DECLARATION``, a
``games.base.Declaration``): everything the site knows about it. Rooms, views,
the admin, templates and scripts read the declarations from here, so adding a
game is its own files plus one line below (README "Adding a game").
``register`` adds a game from elsewhere (a test's toy game; the setting
``KHELAGHOR_EXTRA_GAMES``, see rooms/apps.py).
"""

from __future__ import annotations

import importlib
import threading

from .base import Declaration, Game

GAMES = (
    "games.liars_dice",
    "games.ludo",
    "games.snakes",
)

_declarations: dict[str, Declaration] = {}
_loaded = False
# A server's first commands ask for games from several threads at once: one
# loads the list while the others wait, rather than finding it half loaded.
_loading = threading.RLock()


def _load() -> None:
    global _loaded
    if _loaded:
        return
    with _loading:
        if _loaded:
            return
        for module_name in GAMES:
            _add(module_name)
        _loaded = True


def register(module_name: str) -> Declaration:
    """Adds the game that ``module_name`` declares (its ``DECLARATION``)."""
    _load()
    with _loading:
        return _add(module_name)


def _add(module_name: str) -> Declaration:
    declared = importlib.import_module(module_name).DECLARATION
    if not isinstance(declared, Declaration):
        raise TypeError(f"{module_name}.DECLARATION is not a games.base.Declaration")
    _declarations[declared.id] = declared
    return declared


def unregister(name: str) -> None:
    """Removes a game added by ``register`` (tests clean up with it)."""
    _declarations.pop(name, None)


def declarations() -> list[Declaration]:
    """Every game, in the order listed (the order the site shows them)."""
    _load()
    return list(_declarations.values())


def declaration(name: str) -> Declaration:
    """The game called ``name``; KeyError for an unknown one."""
    _load()
    return _declarations[name]


def by_slug(slug: str) -> Declaration:
    """The game whose URL slug is ``slug``; KeyError for an unknown one."""
    for declared in declarations():
        if declared.slug == slug:
            return declared
    raise KeyError(slug)


def get_game(name: str) -> Game:
    return declaration(name).engine


def game_names() -> list[str]:
    _load()
    return sorted(_declarations)
