"""Where the games and their computer players are looked up by name.

Each game module registers itself here, so adding a game is one import line.
"""

from __future__ import annotations

from .base import Game

GAME_MODULES = ("snakes", "liars_dice", "ludo")
_games: dict[str, Game] = {}


def _load() -> None:
    if _games:
        return
    import importlib

    for module_name in GAME_MODULES:
        try:
            module = importlib.import_module(f"games.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"games.{module_name}":
                raise
            continue  # a game that has not landed yet
        game = module.GAME
        _games[game.name] = game


def get_game(name: str) -> Game:
    _load()
    return _games[name]


def game_names() -> list[str]:
    _load()
    return sorted(_games)
