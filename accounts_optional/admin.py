"""Moderating ratings: reset a player's rating, keep a cheater off the leaderboards.

Both ask for a reason first (the rooms admin's intermediate page) and are
written to ``RatingModerationLog``, which, like the rooms' moderation log,
cannot be changed from the admin.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.utils.translation import gettext_lazy as _

from rooms.admin import ReadOnlyAdmin, _with_reason, game_filter, game_shown

from . import ratings
from .forms import BengaliUsernames
from .models import LeaderboardExclusion, Rating, RatingModerationLog


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["user", game_shown, "mu_shown", "sigma_shown", "games", "excluded",
                    "updated_at"]
    list_filter = [game_filter("game")]
    search_fields = ["user__username"]
    list_select_related = ["user", "user__leaderboard_exclusion"]
    actions = ["reset_ratings", "exclude_players"]

    @admin.display(description=_("rating"), ordering="mu")
    def mu_shown(self, rating):
        return f"{rating.mu:.1f}"

    @admin.display(description=_("uncertainty (σ)"), ordering="sigma")
    def sigma_shown(self, rating):
        return f"{rating.sigma:.1f}"

    @admin.display(description=_("off the leaderboards"), boolean=True)
    def excluded(self, rating):
        return hasattr(rating.user, "leaderboard_exclusion")

    # The rows are never edited by hand, but the actions need the change permission.
    def has_change_permission(self, request, obj=None):
        return admin.ModelAdmin.has_change_permission(self, request, obj)

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in Rating._meta.fields]

    @_with_reason(_("Reset the selected ratings"))
    def reset_ratings(self, request, rating, reason):
        ratings.rating_reset(rating, moderator=request.user, reason=reason)

    reset_ratings.allowed_permissions = ("change",)

    @_with_reason(_("Keep the selected players off the leaderboards"))
    def exclude_players(self, request, rating, reason):
        ratings.leaderboard_exclude(rating.user, moderator=request.user, reason=reason)

    exclude_players.allowed_permissions = ("change",)


@admin.register(LeaderboardExclusion)
class LeaderboardExclusionAdmin(ReadOnlyAdmin):
    list_display = ["user", "reason", "created_by", "created_at"]
    search_fields = ["user__username", "reason"]
    list_select_related = ["user", "created_by"]
    actions = ["include_players"]

    def has_change_permission(self, request, obj=None):
        return admin.ModelAdmin.has_change_permission(self, request, obj)

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in LeaderboardExclusion._meta.fields]

    @_with_reason(_("Show the selected players on the leaderboards again"))
    def include_players(self, request, exclusion, reason):
        ratings.leaderboard_include(exclusion, moderator=request.user, reason=reason)

    include_players.allowed_permissions = ("change",)


@admin.register(RatingModerationLog)
class RatingModerationLogAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "moderator", "action", "user", "game", "before", "reason"]
    list_filter = ["action", "moderator", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["user__username", "reason"]
    list_select_related = ["user", "moderator"]


class PlayerCreationForm(BengaliUsernames, AdminUserCreationForm):
    pass


class PlayerChangeForm(BengaliUsernames, UserChangeForm):
    pass


# Django's own user admin, except that its forms take the Bengali usernames the
# sign-up form takes: with the model's check a moderator could neither add
# "রুমি" nor save any change (deactivating a cheater) to an account so named.
admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class PlayerAdmin(UserAdmin):
    add_form = PlayerCreationForm
    form = PlayerChangeForm
