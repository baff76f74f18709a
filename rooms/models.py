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


class Room(models.Model):
    class Status(models.TextChoices):
        LOBBY = "lobby"
        PLAYING = "playing"
        FINISHED = "finished"
        CLOSED = "closed"

    class Pace(models.TextChoices):
        NORMAL = "normal"
        PARTY = "party"

    class Visibility(models.TextChoices):
        PRIVATE = "private"
        PUBLIC = "public"

    code = models.CharField(max_length=4, db_index=True)
    game = models.CharField(max_length=20)
    options = models.JSONField(default=dict, blank=True)
    pace = models.CharField(max_length=10, choices=Pace.choices, default=Pace.NORMAL)
    visibility = models.CharField(
        max_length=10, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY)
    version = models.PositiveIntegerField(default=0)
    # The commitment for the next game, shown in the lobby before anyone
    # contributes a client seed; it moves to the Game row at the start.
    next_server_seed = models.CharField(max_length=64)
    next_server_seed_hash = models.CharField(max_length=64)
    autostart_at = models.DateTimeField(null=True, blank=True)
    # The game being played or last played; fetched with the room in one query.
    current_game = models.ForeignKey(
        "Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    closed_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_activity = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["code"], condition=~Q(status="closed"), name="unique_open_room_code"
            )
        ]
        indexes = [models.Index(fields=["status", "visibility", "game"])]

    def __str__(self) -> str:
        return f"{self.code} ({self.game}, {self.status})"

    @property
    def turn_seconds(self) -> float:
        """15 s a decision, 30 s at party tables (docs/rules.md §4.2). Tests and the
        load benchmark shorten the normal pace with KHELAGHOR_TURN_SECONDS."""
        normal = float(getattr(settings, "KHELAGHOR_TURN_SECONDS", 15))
        return 2 * normal if self.pace == self.Pace.PARTY else normal


class Seat(models.Model):
    class Kind(models.TextChoices):
        OPEN = "open"
        HUMAN = "human"
        BOT = "bot"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.OPEN)
    session_key = models.CharField(max_length=64, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    name = models.CharField(max_length=40, blank=True)
    bot_kind = models.CharField(max_length=40, blank=True)
    held = models.BooleanField(default=False, help_text="A computer holds this human's seat")
    # Pass and play: a human seat played on another player's phone. It belongs
    # to the session that added it (session_key), which keeps its own seat too.
    on_device = models.BooleanField(
        default=False, help_text="Played on the host's device (pass and play)"
    )
    connections = models.PositiveIntegerField(default=0)
    last_seen = models.DateTimeField(null=True, blank=True)
    disconnected_at = models.DateTimeField(null=True, blank=True)
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    client_seed = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["room", "index"], name="unique_seat_index")
        ]

    def __str__(self) -> str:
        return f"{self.room.code} seat {self.index}: {self.name or self.kind}"

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
        IN_PROGRESS = "in_progress"
        FINISHED = "finished"
        ABORTED = "aborted"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField()
    game = models.CharField(max_length=20)
    options = models.JSONField()
    seats = models.JSONField(help_text="The record's seats, fixed at the start")
    server_seed = models.CharField(max_length=64, help_text="Secret until the game ends")
    server_seed_hash = models.CharField(max_length=64)
    client_seed = models.CharField(max_length=400)
    seq = models.PositiveIntegerField(default=0, help_text="Number of move-log entries")
    nonce = models.PositiveIntegerField(default=0, help_text="Dice drawn so far")
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.IN_PROGRESS, db_index=True
    )
    placings = models.JSONField(default=list, blank=True)
    turn_seat = models.SmallIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    deadline_kind = models.CharField(max_length=10, blank=True)  # "human" or "bot"
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="unique_game_number")
        ]

    def __str__(self) -> str:
        return f"{self.room.code} game {self.number} ({self.game}, {self.status})"


class MoveLog(models.Model):
    """Append-only: the ordered events of a game (record events and table events)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    event = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq")
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.event.get('type')}"


class Ban(models.Model):
    """A guest session or an account that may not create or join rooms."""

    session_key = models.CharField(max_length=64, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    reason = models.CharField(max_length=200)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    active = models.BooleanField(default=True)

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

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="reports")
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    seat = models.SmallIntegerField(null=True, blank=True, help_text="The seat reported, if any")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    note = models.CharField(max_length=300, blank=True)
    session_key = models.CharField(max_length=64, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    resolved = models.BooleanField(default=False, db_index=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
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
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=10, choices=Action.choices)
    # Rooms are closed, never deleted, so the log keeps its room.
    room = models.ForeignKey(
        Room, null=True, blank=True, on_delete=models.SET_NULL, related_name="moderation"
    )
    target = models.CharField(max_length=200, blank=True, help_text="Seat, name, session or user")
    reason = models.CharField(max_length=200)

    class Meta:
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

    beat = models.DateTimeField()

    def __str__(self) -> str:
        return f"turn clocks last ran {self.beat:%Y-%m-%d %H:%M:%S}"
