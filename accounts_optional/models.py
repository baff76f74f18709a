"""Ratings of accounts, one per game, and what moderators did to them.

Guests play on their session alone and have no rating. An account's rating in
a game is an OpenSkill (Plackett-Luce) estimate: ``mu`` is the skill, ``sigma``
how unsure we still are of it (``accounts_optional.ratings`` updates them).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# OpenSkill's defaults: a new player is 25 ± 25/3.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3


class Rating(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings",
        verbose_name=_("account"),
    )
    game = models.CharField(_("game"), max_length=20)
    mu = models.FloatField(_("skill (μ)"), default=DEFAULT_MU)
    sigma = models.FloatField(_("uncertainty (σ)"), default=DEFAULT_SIGMA)
    games = models.PositiveIntegerField(_("games"), default=0, help_text=_("Rated games played"))
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="unique_rating_per_game")
        ]
        indexes = [models.Index(fields=["game", "-mu"])]

    def __str__(self) -> str:
        return f"{self.user} {self.game}: {self.mu:.1f} ± {self.sigma:.1f}"


class RatedGame(models.Model):
    """A game whose ratings were updated: the unique key makes the update happen
    once, however many processes see the game end."""

    game = models.OneToOneField("rooms.Game", on_delete=models.CASCADE, primary_key=True,
                                related_name="+", verbose_name=_("game"))
    rated_at = models.DateTimeField(_("rated at"), auto_now_add=True)
    players = models.PositiveSmallIntegerField(
        _("players"), help_text=_("Accounts whose rating changed")
    )

    class Meta:
        verbose_name = _("rated game")
        verbose_name_plural = _("rated games")


class RatingDue(models.Model):
    """A rated game that ended and whose ratings are still to be updated. It is
    written in the transaction that ends the game and removed by the update, so
    a process that dies between the two leaves it for the sweep to find
    (``ratings.rate_overdue``) instead of leaving the game unrated."""

    game = models.OneToOneField("rooms.Game", on_delete=models.CASCADE, primary_key=True,
                                related_name="+", verbose_name=_("game"))
    seats = models.JSONField(
        _("seats"), help_text=_("Who sat where at the end: index, kind, user, computer")
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("rating still to update")
        verbose_name_plural = _("ratings still to update")


class RatingChange(models.Model):
    """One rated game's effect on one rating: the points of its history chart,
    and how the game moved it, for the game's results panel."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes",
                               verbose_name=_("rating"))
    game = models.ForeignKey("rooms.Game", null=True, on_delete=models.SET_NULL,
                             related_name="+", help_text=_("Empty for a moderator's reset"),
                             verbose_name=_("game"))
    # The seat the account played and its skill before the game: the room's
    # seats may change hands after the game, and the rating's earlier change
    # may be gone (a moderator's reset). Empty in changes written before these
    # were kept.
    seat = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)
    mu_before = models.FloatField(_("skill before (μ)"), null=True, blank=True)
    mu = models.FloatField(_("skill (μ)"))
    sigma = models.FloatField(_("uncertainty (σ)"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["created_at", "id"]


class LeaderboardExclusion(models.Model):
    """An account kept off every leaderboard (a cheater). Its ratings stay."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="leaderboard_exclusion", verbose_name=_("account"))
    reason = models.CharField(_("reason"), max_length=200)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("leaderboard exclusion")
        verbose_name_plural = _("leaderboard exclusions")

    def __str__(self) -> str:
        return f"{self.user}: {self.reason}"


class RatingModerationLog(models.Model):
    """Append-only: moderators' actions on ratings. ``rooms.ModerationLog``
    lists room actions only (its choices are fixed by a rooms migration)."""

    class Action(models.TextChoices):
        RESET = "reset", _("Reset rating")
        EXCLUDE = "exclude", _("Exclude from leaderboards")
        INCLUDE = "include", _("Show on leaderboards again")

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("moderator"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                             related_name="+", verbose_name=_("account"))
    game = models.CharField(_("game"), max_length=20, blank=True,
                            help_text=_("Empty: every game"))
    before = models.CharField(_("before"), max_length=100, blank=True,
                              help_text=_("The rating it replaced"))
    reason = models.CharField(_("reason"), max_length=200)

    class Meta:
        verbose_name = _("rating moderation-log entry")
        verbose_name_plural = _("rating moderation log")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action} {self.user}"
