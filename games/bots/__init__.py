"""Computer players: one interface for every game.

A bot is given exactly what a human in its seat would see (``view_for``) and the
legal actions, and returns one of them. It never sees another seat's hidden dice:
it cannot, because the view does not contain them. Kinds are named per game;
``make_bot(game, "prob:0.3")`` passes the text after the colon to the kind.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .base import Action, Bot, RandomBot, UnknownBot
from .external import ExternalBot

__all__ = ["Action", "Bot", "RandomBot", "UnknownBot", "kinds_for", "make_bot", "register",
           "split_specs"]

BotFactory = Callable[[str | None], Bot]
_kinds: dict[str, dict[str, BotFactory]] = {}


def register(game: str, kind: str, factory: BotFactory) -> None:
    _kinds.setdefault(game, {})[kind] = factory


def kinds_for(game: str) -> list[str]:
    _load(game)
    return sorted(set(_kinds.get(game, {})) | {"random", "external"})


_loaded: set[str] = set()


def _load(game: str) -> None:
    """Import the game's bot module, which registers its kinds, and the modules it
    names in ``MORE_KINDS`` (kinds that build on it, kept in their own files).
    Once per game: every computer decision makes its bot, and the import
    system's lookup (its lock, ``sys.modules``) was most of that."""
    if game in _loaded:
        return
    try:
        module = importlib.import_module(f"games.bots.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"games.bots.{game}":
            raise
        return
    for name in getattr(module, "MORE_KINDS", ()):
        importlib.import_module(f"games.bots.{name}")
    _loaded.add(game)


def split_specs(text: str) -> list[str]:
    """The bot specs of a comma-separated list such as ``--bots``.

    A spec's own parameters are comma-separated too (``standard:safe=8,risk=0.8``),
    so an item that names no kind (it has an ``=`` and no ``:``) continues the spec
    before it: ``standard:safe=8,risk=0.8,priority`` is two specs. Empty items are
    kept, for the caller to reject.
    """
    specs: list[str] = []
    for item in text.split(","):
        if specs and "=" in item and ":" not in item:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def make_bot(game: str, spec: str) -> Bot:
    """A bot from a spec such as ``standard``, ``prob:0.3`` or ``external:CMD``;
    ``UnknownBot`` for an unknown kind or parameters the kind rejects."""
    kind, _, param = spec.partition(":")
    if kind == "random":
        return RandomBot()
    if kind == "external":
        if not param:
            raise UnknownBot("external needs a command: external:COMMAND")
        return ExternalBot(param)
    _load(game)
    factory = _kinds.get(game, {}).get(kind)
    if factory is None:
        known = ", ".join(kinds_for(game))
        raise UnknownBot(f"Unknown bot kind {kind!r} for {game}; known: {known}")
    try:
        return factory(param or None)
    except ValueError as exc:  # a kind rejects its parameters with ValueError
        raise UnknownBot(f"{spec}: {exc}") from exc
