"""Optional accounts: sign up, sign in (rate-limited), and the profile.

Playing never needs an account. When a guest signs up or signs in, the seats
their browser played in are given to the account (rooms.history
.attach_guest_history), so the games they played as a guest stay theirs.
"""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games.registry import by_slug, declarations, get_game
from rooms import history, selectors
from rooms.nicknames import BadNickname, clean_nickname, keep_on_account

from . import ratings
from .forms import RateLimitedLoginForm, SignUpForm


def _guest_key(request: HttpRequest) -> str:
    return request.session.session_key or ""


def _name_at_the_table(request: HttpRequest, user) -> None:
    """The name a player who signs up or in goes by at the table: the nickname
    this phone already has; on a phone without one, the name their account
    keeps (``keep_on_account``: signing in on a new phone brings it back), else
    their username (the home page asked a new account holder "What should we
    call you? No sign-up, no password": a phone drill). A name the nickname
    rules refuse (too long, an underscore) leaves the question. An account
    that keeps no name yet keeps the one chosen here."""
    chosen = request.session.get("nickname")
    if not chosen:
        for name in (user.first_name, user.get_username()):
            try:
                chosen = request.session["nickname"] = clean_nickname(name)
                break
            except BadNickname:
                continue
    if chosen and not user.first_name:
        keep_on_account(user.pk, chosen)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("profile")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        old_key = _guest_key(request)
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        history.attach_guest_history(old_session_key=old_key,
                                     new_session_key=request.session.session_key, user=user)
        _name_at_the_table(request, user)
        return redirect("profile")
    return render(request, "accounts/form.html", {
        "form": form, "title": _("Create an account"),
        "intro": _("Keep your games and your name across phones and computers. "
                   "You never need an account to play."),
        "submit": _("Sign up"),
    })


class SignInView(auth_views.LoginView):
    form_class = RateLimitedLoginForm
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def form_valid(self, form):
        old_key = _guest_key(self.request)
        response = super().form_valid(form)  # login() gives the session a new key
        history.attach_guest_history(old_session_key=old_key,
                                     new_session_key=self.request.session.session_key,
                                     user=form.get_user())
        _name_at_the_table(self.request, form.get_user())
        return response


class SignOutView(auth_views.LogoutView):
    """Signing out empties the session, the nickname with it: the player was
    asked their name again on the next page. The name stays on this phone."""

    def post(self, request, *args, **kwargs):
        nickname = request.session.get("nickname")
        response = super().post(request, *args, **kwargs)
        if nickname:
            request.session["nickname"] = nickname
        return response


def profile(request: HttpRequest) -> HttpResponse:
    """The signed-in player's games, or this browser's games for a guest."""
    user = request.user if request.user.is_authenticated else None
    session_key = request.session.session_key or ""
    games = selectors.player_games(user=user, session_key=session_key)
    return render(request, "accounts/profile.html", {
        "stats": history.profile_stats(games),
        "recent": games[:30],
        "played": len(games),
        "won": sum(g.won for g in games),
        "ratings": ratings.profile_ratings(user) if user is not None else [],
    })


@require_http_methods(["GET", "HEAD"])
def leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    """One game's leaderboard: accounts by rating; newcomers listed apart."""
    try:
        game = by_slug(slug).id
    except KeyError:
        raise Http404("No such game") from None
    return render(request, "accounts/leaderboard.html", {
        "game": game,
        "title": get_game(game).title,
        "board": ratings.leaderboard(game),
        "min_games": ratings.MIN_GAMES,
        "others": [{"slug": s, "title": get_game(g).title}
                   for s, g in ((d.slug, d.id) for d in declarations()) if g != game],
    })
