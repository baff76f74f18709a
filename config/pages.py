"""The site's own pages around the rooms: the home page and the rules pages.

The home page is the front door. A first visit asks for one thing only, a
nickname (kept in the session by ``rooms.views.nickname``); after that it offers
quick play, a private room and joining by code. The rules pages are plain
translated templates, one per game, found by the game's URL slug in the
registry (games/registry.py): no data, so they are cacheable and light.
"""

from django.http import Http404
from django.shortcuts import render

from games.registry import by_slug
from rooms import declared
from rooms.selectors import open_tables
from rooms.views import local_path


def _safe_next(request) -> str:
    return local_path(request, request.GET.get("next", "")) or ""


def home(request):
    nickname = request.session.get("nickname", "")
    games = declared.for_pages()
    # A rules page's buttons come here for their game (?game=ludo): the room
    # form has it chosen and quick play marks its tile.
    picked = request.GET.get("game", "")
    if picked not in {g["id"] for g in games}:
        picked = ""
    return render(
        request,
        "home.html",
        {
            "nickname": nickname,
            "next": _safe_next(request),
            # What the forms offer, per game (docs/rules.md §1-3). The server
            # validates again; this only shapes the forms.
            "games": games,
            "picked": picked,
            "tables": open_tables(user=request.user, session_key=request.session.session_key or "")
            if nickname else [],
            "chosen": picked or games[0]["id"],
        },
    )


def rules(request, slug: str):
    """One game's rules page: the template its declaration names."""
    try:
        game = by_slug(slug)
    except KeyError:
        raise Http404("No such game") from None
    return render(request, game.rules_template, {"game": game.id})
