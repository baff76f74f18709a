"""Rooms, seats, games and their move logs.

A game's truth is its ``MoveLog``: the ordered events, from which the engine
state is rebuilt by replay (``rooms.services.load_state``). The ``Game`` row
holds what must be locked and compared quickly: the turn sequence number
(``seq`` = number of log entries), the dice nonce, the pending deadline.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from . import clock
from .declared import title_of


class Room(models.Model):
    class Status(models.TextChoices):
        LOBBY = "lobby", _("Lobby")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        CLOSED = "closed", _("Closed")

    class Pace(models.TextChoices):
        NORMAL = "normal", _("Normal")
        PARTY = "party", _("Party")

    class Visibility(models.TextChoices):
        PRIVATE = "private", _("Private")
        PUBLIC = "public", _("Public")

    code = models.CharField(_("code"), max_length=4, db_index=True)
    game = models.CharField(_("game"), max_length=20)
    options = models.JSONField(_("options"), default=dict, blank=True)
    pace = models.CharField(_("pace"), max_length=10, choices=Pace.choices, default=Pace.NORMAL)
    visibility = models.CharField(
        _("visibility"), max_length=10, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.LOBBY
    )
    version = models.PositiveIntegerField(_("version"), default=0)
    # The commitment for the next game, shown in the lobby before anyone
    # contributes a client seed; it moves to the Game row at the start.
    next_server_seed = models.CharField(_("next server seed"), max_length=64)
    next_server_seed_hash = models.CharField(_("next server seed hash"), max_length=64)
    autostart_at = models.DateTimeField(_("starts by itself at"), null=True, blank=True)
    # The game being played or last played; fetched with the room in one query.
    current_game = models.ForeignKey(
        "Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("current game"),
    )
    closed_reason = models.CharField(_("why it was closed"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_activity = models.DateTimeField(_("last activity"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        constraints = [
            models.UniqueConstraint(
                fields=["code"], condition=~Q(status="closed"), name="unique_open_room_code"
            )
        ]
        indexes = [models.Index(fields=["status", "visibility", "game"])]

    def __str__(self) -> str:
        # What the admin's titles and links say: the game and its status in words.
        return f"{self.code} ({title_of(self.game)}, {self.get_status_display()})"

    @property
    def turn_seconds(self) -> float:
        """15 s a decision, 30 s at party tables (docs/rules.md §4.2). Tests and the
        load benchmark shorten the normal pace with KHELAGHOR_TURN_SECONDS."""
        normal = float(getattr(settings, "KHELAGHOR_TURN_SECONDS", 15))
        return 2 * normal if self.pace == self.Pace.PARTY else normal


class Seat(models.Model):
    class Kind(models.TextChoices):
        OPEN = "open", _("Open")
        HUMAN = "human", _("Human")
        BOT = "bot", _("Bot")

    room = models.ForeignKey(
        Room, on_delete=models.CASCADE, related_name="seats", verbose_name=_("room")
    )
    index = models.PositiveSmallIntegerField(_("seat number"))
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.OPEN)
    session_key = models.CharField(_("session"), max_length=64, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        verbose_name=_("account"),
    )
    name = models.CharField(_("name"), max_length=40, blank=True)
    bot_kind = models.CharField(_("computer kind"), max_length=40, blank=True)
    held = models.BooleanField(
        _("held by a computer"), default=False, help_text=_("A computer holds this human's seat")
    )
    # The decisions a computer has made for this seat since it last took it
    # over, so the player can be told when they are back. Reset at each
    # takeover; meaningful only while ``held`` (a stale count stays behind
    # after the seat is taken back and is never shown).
    held_moves = models.PositiveIntegerField(
        _("turns played by the computer"), default=0,
        help_text=_("Turns the computer has played for the player since it took the seat"),
    )
    # Pass and play: a human seat played on another player's phone. It belongs
    # to the session that added it (session_key), which keeps its own seat too.
    on_device = models.BooleanField(
        _("pass and play"), default=False,
        help_text=_("Played on the host's device (pass and play)"),
    )
    connections = models.PositiveIntegerField(_("connections"), default=0)
    last_seen = models.DateTimeField(_("last seen"), null=True, blank=True)
    disconnected_at = models.DateTimeField(_("disconnected at"), null=True, blank=True)
    consecutive_timeouts = models.PositiveSmallIntegerField(_("timeouts in a row"), default=0)
    client_seed = models.CharField(_("client seed"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["room", "index"], name="unique_seat_index")
        ]

    def __str__(self) -> str:
        return _("%(code)s seat %(seat)s: %(who)s") % {
            "code": self.room.code, "seat": self.index, "who": self.name or self.get_kind_display()
        }

    # A socket's process may die without saying goodbye (SIGKILL, power), leaving
    # ``connections`` too high. So presence expires on its own: every message
    # from a seated page (a ping every 25 s, any action) renews ``last_seen``, at
    # most every rooms.services.SEEN_EVERY seconds, and a seat silent this long
    # is away, its absence counted from ``last_seen`` (the 45 s away rule).
    SILENT_AFTER_SECONDS = 40

    @property
    def connected(self) -> bool:
        if self.connections <= 0:
            return False
        if self.last_seen is None:
            return True
        silent = (clock.now() - self.last_seen).total_seconds()
        return silent < self.SILENT_AFTER_SECONDS

    def away_seconds(self, now) -> float:
        """How long the player has been gone (0 while connected)."""
        if self.connected:
            return 0.0
        since = self.disconnected_at or self.last_seen
        # Never seen at all: we cannot say for how long, so not "away" yet.
        return (now - since).total_seconds() if since else 0.0


class Game(models.Model):
    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", _("In Progress")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")

    room = models.ForeignKey(
        Room, on_delete=models.CASCADE, related_name="games", verbose_name=_("room")
    )
    number = models.PositiveIntegerField(_("number"))
    game = models.CharField(_("game"), max_length=20)
    options = models.JSONField(_("options"))
    seats = models.JSONField(_("seats"), help_text=_("The record's seats, fixed at the start"))
    server_seed = models.CharField(
        _("server seed"), max_length=64, help_text=_("Secret until the game ends")
    )
    server_seed_hash = models.CharField(_("server seed hash"), max_length=64)
    client_seed = models.CharField(_("client seed"), max_length=400)
    seq = models.PositiveIntegerField(
        _("moves logged"), default=0, help_text=_("Number of move-log entries")
    )
    nonce = models.PositiveIntegerField(
        _("dice drawn"), default=0, help_text=_("Dice drawn so far")
    )
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.IN_PROGRESS,
        db_index=True,
    )
    placings = models.JSONField(_("placings"), default=list, blank=True)
    turn_seat = models.SmallIntegerField(_("seat to move"), null=True, blank=True)
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True, db_index=True)
    # "human" or "bot": whose decision the deadline waits for.
    deadline_kind = models.CharField(_("whose deadline"), max_length=10, blank=True)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="unique_game_number")
        ]

    def __str__(self) -> str:
        return _("%(code)s game %(number)s (%(game)s, %(status)s)") % {
            "code": self.room.code, "number": self.number, "game": title_of(self.game),
            "status": self.get_status_display(),
        }


class MoveLog(models.Model):
    """Append-only: the ordered events of a game (record events and table events)."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="moves", verbose_name=_("game")
    )
    seq = models.PositiveIntegerField(_("position in the log"))
    event = models.JSONField(_("event"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("move-log entry")
        verbose_name_plural = _("move logs")
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq")
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.event.get('type')}"


class Ban(models.Model):
    """A guest session or an account that may not create or join rooms."""

    session_key = models.CharField(_("session"), max_length=64, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
        verbose_name=_("account"),
    )
    reason = models.CharField(_("reason"), max_length=200)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    active = models.BooleanField(_("active"), default=True)

    class Meta:
        verbose_name = _("ban on a player")
        verbose_name_plural = _("bans")

    def __str__(self) -> str:
        who = self.user or self.session_key[:8]
        return f"ban {who}: {self.reason}"

    @classmethod
    def is_banned(cls, *, session_key: str, user_id: int | None) -> bool:
        match = Q(session_key=session_key) if session_key else Q(pk__in=[])
        if user_id is not None:
            match |= Q(user_id=user_id)
        return cls.objects.filter(match, active=True).exists()


class Report(models.Model):
    """A player's report about a room: it waits in the admin's queue until resolved."""

    class Reason(models.TextChoices):
        ABUSIVE_NAME = "abusive_name", _("Abusive name")
        CHEATING = "cheating", _("Cheating or collusion")
        SPAM = "spam", _("Spam")
        OTHER = "other", _("Other")

    room = models.ForeignKey(
        Room, on_delete=models.CASCADE, related_name="reports", verbose_name=_("room")
    )
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports",
        verbose_name=_("game"),
    )
    seat = models.SmallIntegerField(
        _("seat"), null=True, blank=True, help_text=_("The seat reported, if any")
    )
    reason = models.CharField(_("reason"), max_length=20, choices=Reason.choices)
    note = models.CharField(_("note"), max_length=300, blank=True)
    session_key = models.CharField(_("session"), max_length=64, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+", verbose_name=_("account"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    resolved = models.BooleanField(_("resolved"), default=False, db_index=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+", verbose_name=_("resolved by"),
    )
    resolved_at = models.DateTimeField(_("resolved at"), null=True, blank=True)

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["resolved", "-created_at"]

    def __str__(self) -> str:
        return f"report {self.room.code}: {self.reason}"


class ModerationLog(models.Model):
    """Append-only: every moderator action, who took it and why."""

    class Action(models.TextChoices):
        CLOSE = "close", _("Close room")
        REMOVE = "remove", _("Remove player")
        RENAME = "rename", _("Rename player")
        BAN = "ban", _("Ban")
        UNBAN = "unban", _("Lift ban")
        RESOLVE = "resolve", _("Resolve report")

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("moderator"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    # Rooms are closed, never deleted, so the log keeps its room.
    room = models.ForeignKey(
        Room, null=True, blank=True, on_delete=models.SET_NULL, related_name="moderation",
        verbose_name=_("room"),
    )
    target = models.CharField(
        _("target"), max_length=200, blank=True, help_text=_("Seat, name, session or user")
    )
    reason = models.CharField(_("reason"), max_length=200)
    # The player the action was about, whole: a seat forgets its player when
    # they are removed, and the moderator may decide to ban them after that.
    session_key = models.CharField(_("session"), max_length=64, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+", verbose_name=_("account"),
    )

    class Meta:
        verbose_name = _("moderation-log entry")
        verbose_name_plural = _("moderation log")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action} {self.target}"


class SiteClock(models.Model):
    """When the turn clocks last ran anywhere: one row, renewed about every second
    by the ticker of every server process (rooms.ticker). A gap much longer than
    that means no process ran them: every process was down (a full restart, a
    reboot) or the database was away. The clocks pause for such a gap
    (``services.clocks_beat``): nobody loses a turn, or a seat to a computer,
    to a server that was not there."""

    beat = models.DateTimeField(_("clocks last ran"))

    class Meta:
        verbose_name = _("turn clocks")
        verbose_name_plural = _("turn clocks")

    def __str__(self) -> str:
        return f"turn clocks last ran {self.beat:%Y-%m-%d %H:%M:%S}"
