"""Template tags that read the game registry (rooms/declared.py)."""

from django import template
from django.utils.html import json_script

from games.registry import declaration
from rooms import declared

register = template.Library()


@register.simple_tag
def declared_games():
    """``{% declared_games as games %}``: every game as the pages show it."""
    return declared.for_pages()


@register.simple_tag
def declared_game(game_id):
    """``{% declared_game room.game as g %}``: one game's declaration."""
    return declaration(game_id)


@register.simple_tag
def games_json():
    """The browser's facts of every game, once per page: ``#kg-games``."""
    return json_script(declared.client_facts(), "kg-games")


@register.filter
def game_title(game_id: str) -> str:
    """``{{ room.game|game_title }}``: the game's name in the page's language."""
    return declared.title_of(game_id)
