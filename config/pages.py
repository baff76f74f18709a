"""The site's own pages around the rooms: the home page and the three rules pages.

The home page is the front door. A first visit asks for one thing only, a
nickname (kept in the session by ``rooms.views.nickname``); after that it offers
quick play, a private room and joining by code. The rules pages are plain
translated templates: no data, so they are cacheable and light.
"""

from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.generic import TemplateView

# What the home page's "create a room" form offers, per game (docs/rules.md §1-3).
# The server validates again; this only shapes the form.
GAMES = [
    {"slug": "liars_dice", "rules": "rules_liars_dice", "min": 2, "max": 6, "default": 4},
    {"slug": "ludo", "rules": "rules_ludo", "min": 2, "max": 6, "default": 4},
    {"slug": "snakes", "rules": "rules_snakes", "min": 2, "max": 4, "default": 2},
]


def _safe_next(request) -> str:
    target = request.GET.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def home(request):
    nickname = request.session.get("nickname", "")
    return render(
        request,
        "home.html",
        {
            "nickname": nickname,
            "next": _safe_next(request),
            "games": GAMES,
        },
    )


class RulesView(TemplateView):
    """One rules page; ``template_name`` says which."""

    game = ""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["game"] = self.game
        return context


liars_dice_rules = RulesView.as_view(template_name="rules/liars_dice.html", game="liars_dice")
ludo_rules = RulesView.as_view(template_name="rules/ludo.html", game="ludo")
snakes_rules = RulesView.as_view(template_name="rules/snakes.html", game="snakes")
