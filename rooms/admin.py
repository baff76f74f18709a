"""The moderators' admin: find a room, watch its replay, act on it, and see the log.

History is read-only here: the move log and the moderation log cannot be added
to, changed or deleted from the admin. Every action that changes a room goes
through ``rooms.moderation`` (which logs it and tells the players at once) and
asks for a reason first, on an intermediate page.
"""

from __future__ import annotations

import json
from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from accounts_optional.forms import RateLimitedAdminLoginForm
from games.registry import declarations

from . import declared, errors, moderation
from .models import Ban, Game, ModerationLog, MoveLog, Report, Room, Seat

admin.site.site_header = _("Khelaghor moderation")
admin.site.site_title = _("Khelaghor moderation")
admin.site.index_title = _("Rooms, games and reports")
# Staff passwords are worth guessing too: the same failure limits as the site's.
admin.site.login_form = RateLimitedAdminLoginForm


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), max_length=200,
        help_text=_(
            "Players see the reason when a room is closed; it is kept in the moderation log."
        ),
        widget=forms.TextInput(attrs={"size": 60, "autofocus": True}),
    )


def _reason_page(modeladmin, request, *, title: str, objects, action: str, form=None,
                 extra=None):
    """The intermediate page of an admin action: what will happen, and a reason."""
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "objects": objects,
        "form": form or ReasonForm(),
        "action": action,
        "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        "opts": modeladmin.model._meta,
        **(extra or {}),
    }
    return TemplateResponse(request, "admin/rooms/action_reason.html", context)


def _with_reason(title: str):
    """Turn ``fn(modeladmin, request, obj, reason)`` into an admin action that
    first asks for a reason, then applies ``fn`` to each selected object."""

    def decorator(fn):
        def action(modeladmin, request, queryset):
            if "apply" in request.POST:
                form = ReasonForm(request.POST)
                if form.is_valid():
                    done = 0
                    for obj in queryset:
                        try:
                            fn(modeladmin, request, obj, form.cleaned_data["reason"])
                            done += 1
                        except errors.RoomError as exc:
                            modeladmin.message_user(request, f"{obj}: {exc.localised()}",
                                                    messages.ERROR)
                    if done:
                        modeladmin.message_user(request, _("Done: %(n)s.") % {"n": done},
                                                messages.SUCCESS)
                    return None
            else:
                form = ReasonForm()
            return _reason_page(modeladmin, request, title=title, objects=list(queryset),
                                action=fn.__name__, form=form)

        action.__name__ = fn.__name__
        action.short_description = title
        return action

    return decorator


class AgeFilter(admin.SimpleListFilter):
    title = _("age")
    parameter_name = "age"

    def lookups(self, request, model_admin):
        return [("hour", _("Last hour")), ("today", _("Last 24 hours")),
                ("week", _("Last 7 days")), ("older", _("Older than 7 days"))]

    def queryset(self, request, queryset):
        now = timezone.now()
        spans = {"hour": timedelta(hours=1), "today": timedelta(days=1),
                 "week": timedelta(days=7)}
        if self.value() in spans:
            return queryset.filter(created_at__gte=now - spans[self.value()])
        if self.value() == "older":
            return queryset.filter(created_at__lt=now - timedelta(days=7))
        return queryset


def game_filter(path: str) -> type[admin.SimpleListFilter]:
    """A filter by game that names the games in the page's language (the field
    holds the registry's id, "liars_dice"). Its query parameter is the field's
    path, as Django's own filter had it, so links made before still work."""

    class GameFilter(admin.SimpleListFilter):
        title = _("game")
        parameter_name = path

        def lookups(self, request, model_admin):
            return [(game.id, declared.title_of(game.id)) for game in declarations()]

        def queryset(self, request, queryset):
            return queryset.filter(**{path: self.value()}) if self.value() else queryset

    return GameFilter


@admin.display(description=_("game"), ordering="game")
def game_shown(row) -> str:
    """A row's game by name, in the page's language."""
    return declared.title_of(row.game)


def _replay_link(game: Game | None):
    if game is None or game.status == Game.Status.IN_PROGRESS:
        return "—"
    return format_html('<a href="{}" target="_blank">{} #{}</a>',
                       reverse("game_page", args=[game.id]), _("replay"), game.id)


# ---- rooms and seats -----------------------------------------------------------


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = ["index", "kind", "name", "bot_kind", "held", "connections", "user",
              "session", "moderate"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("session"))
    def session(self, seat):
        return seat.session_key[:8] + "…" if seat.session_key else "—"

    @admin.display(description=_("moderate"))
    def moderate(self, seat):
        if seat.kind != Seat.Kind.HUMAN or seat.room.status == Room.Status.CLOSED:
            return "—"
        links = [(reverse("admin:rooms_room_moderate", args=[seat.room_id, act, seat.index]),
                  label)
                 for act, label in (("remove", _("remove")), ("rename", _("rename")),
                                    ("ban", _("ban")))]
        return format_html_join(" · ", '<a href="{}">{}</a>', links)


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ["code", game_shown, "status", "visibility", "pace", "players", "created_at",
                    "last_activity", "latest_replay"]
    list_filter = [game_filter("game"), "status", "visibility", "pace", AgeFilter]
    search_fields = ["code", "seats__name"]
    date_hierarchy = "created_at"
    inlines = [SeatInline]
    readonly_fields = ["code", game_shown, "current_game", "options", "pace", "visibility",
                       "status", "version", "next_server_seed_hash", "autostart_at",
                       "closed_reason", "created_at", "last_activity", "games_played",
                       "reports_received"]
    # The game is shown by name (game_shown), never edited.
    exclude = ["next_server_seed", "game"]
    actions = ["close_rooms"]
    change_form_template = "admin/rooms/room/change_form.html"

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            humans=Count("seats", filter=Q(seats__kind=Seat.Kind.HUMAN), distinct=True)
        )

    def get_search_results(self, request, queryset, search_term):
        # Codes are typed in any case; seats__name makes rows repeat without distinct.
        queryset, _dupes = super().get_search_results(request, queryset, search_term.strip())
        return queryset, True

    def has_add_permission(self, request):
        return False  # rooms are made by players

    def has_delete_permission(self, request, obj=None):
        return False  # rooms are closed, never deleted: their games stay

    @admin.display(description=_("humans"), ordering="humans")
    def players(self, room):
        return room.humans

    @admin.display(description=_("latest game"))
    def latest_replay(self, room):
        return _replay_link(room.games.order_by("-number").first())

    @admin.display(description=_("games"))
    def games_played(self, room):
        games = room.games.order_by("number")
        if not games:
            return "—"
        return format_html_join(
            ", ", '<a href="{}">#{} {}</a>',
            ((reverse("game_page", args=[g.id]) if g.status != Game.Status.IN_PROGRESS
              else reverse("admin:rooms_game_change", args=[g.id]), g.number,
              g.get_status_display())
             for g in games),
        )

    @admin.display(description=_("reports"))
    def reports_received(self, room):
        n = room.reports.count()
        url = reverse("admin:rooms_report_changelist") + f"?room__id__exact={room.id}"
        return format_html('<a href="{}">{}</a>', url, n)

    @_with_reason(_("Close the selected rooms"))
    def close_rooms(self, request, room, reason):
        moderation.moderator_close(room.id, moderator=request.user, reason=reason)

    def get_urls(self):
        custom = [
            path("<int:room_id>/moderate/<str:act>/", self.admin_site.admin_view(self.moderate),
                 name="rooms_room_moderate_room"),
            path("<int:room_id>/moderate/<str:act>/<int:seat>/",
                 self.admin_site.admin_view(self.moderate), name="rooms_room_moderate"),
        ]
        return custom + super().get_urls()

    ACTS = {
        "close": (_("Close this room"), None),
        "remove": (_("Remove the player (a computer takes the seat mid-game)"), "seat_remove"),
        "rename": (_("Rename the player to a neutral name"), "seat_rename"),
        "ban": (_("Ban the player's session and account, and remove them"), "seat_ban"),
    }

    def moderate(self, request: HttpRequest, room_id: int, act: str, seat: int | None = None):
        """One moderator action on one room or seat, after a reason."""
        if not self.has_change_permission(request) or act not in self.ACTS:
            raise PermissionDenied
        room = get_object_or_404(Room, id=room_id)
        title, service = self.ACTS[act]
        back = reverse("admin:rooms_room_change", args=[room.id])
        form = ReasonForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            reason = form.cleaned_data["reason"]
            try:
                if act == "close":
                    moderation.moderator_close(room.id, moderator=request.user, reason=reason)
                else:
                    getattr(moderation, service)(room.id, seat, moderator=request.user,
                                                 reason=reason)
            except errors.RoomError as exc:
                self.message_user(request, exc.localised(), messages.ERROR)
            else:
                self.message_user(request, _("Done: %(what)s") % {"what": title},
                                  messages.SUCCESS)
            return HttpResponseRedirect(back)
        target = room.seats.filter(index=seat).first() if seat is not None else None
        return _reason_page(self, request, title=title, objects=[target or room], action=act,
                            form=form, extra={"standalone": True, "back": back, "room": room})


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ["__str__", "room_link", "index", "kind", "name", "connections", "user",
                    "last_seen"]
    list_filter = ["kind", "held", game_filter("room__game"), "room__status"]
    search_fields = ["name", "room__code", "session_key", "user__username"]
    list_select_related = ["room", "user"]
    actions = ["remove_players", "rename_players", "ban_players"]

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in Seat._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("room"))
    def room_link(self, seat):
        return format_html('<a href="{}">{}</a>',
                           reverse("admin:rooms_room_change", args=[seat.room_id]), seat.room.code)

    @_with_reason(_("Remove the selected players (a computer takes the seat mid-game)"))
    def remove_players(self, request, seat, reason):
        moderation.seat_remove(seat.room_id, seat.index, moderator=request.user, reason=reason)

    @_with_reason(_("Rename the selected players to neutral names"))
    def rename_players(self, request, seat, reason):
        moderation.seat_rename(seat.room_id, seat.index, moderator=request.user, reason=reason)

    @_with_reason(_("Ban the selected players' sessions and accounts, and remove them"))
    def ban_players(self, request, seat, reason):
        moderation.seat_ban(seat.room_id, seat.index, moderator=request.user, reason=reason)


# ---- games and their history (read-only) ---------------------------------------


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = ["id", "room_code", "number", game_shown, "status", "started_at",
                    "finished_at", "moves_link", "replay"]
    list_filter = [game_filter("game"), "status", ("started_at", admin.DateFieldListFilter)]
    search_fields = ["room__code", "=id"]
    list_select_related = ["room"]
    exclude = ["server_seed"]  # the secret stays out of sight while a game is on

    @admin.display(description=_("room"), ordering="room__code")
    def room_code(self, game):
        return format_html('<a href="{}">{}</a>',
                           reverse("admin:rooms_room_change", args=[game.room_id]),
                           game.room.code)

    @admin.display(description=_("move log"))
    def moves_link(self, game):
        url = reverse("admin:rooms_movelog_changelist") + f"?game__id__exact={game.id}"
        return format_html('<a href="{}">{}</a>', url, game.seq)

    @admin.display(description=_("replay"))
    def replay(self, game):
        return _replay_link(game)


class EventTypeFilter(admin.SimpleListFilter):
    title = _("event")
    parameter_name = "event_type"

    def lookups(self, request, model_admin):
        # Every game's declared event types, then the room's own (rooms/declared.py).
        return [(t, t) for t in declared.event_types()]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(event__type=self.value())
        return queryset


@admin.register(MoveLog)
class MoveLogAdmin(ReadOnlyAdmin):
    """Append-only history: view it, never edit it."""

    list_display = ["game", "seq", "event_type", "summary", "created_at"]
    list_filter = [EventTypeFilter, game_filter("game__game")]
    search_fields = ["game__room__code", "=game__id"]
    list_select_related = ["game__room"]
    fields = ["game", "seq", "created_at", "pretty_event"]
    readonly_fields = fields

    @admin.display(description=_("type"))
    def event_type(self, move):
        return move.event.get("type")

    @admin.display(description=_("event"))
    def summary(self, move):
        return json.dumps(move.event, ensure_ascii=False)[:120]

    @admin.display(description=_("event"))
    def pretty_event(self, move):
        return format_html("<pre>{}</pre>", json.dumps(move.event, ensure_ascii=False, indent=2))


# ---- bans, reports and the log -------------------------------------------------


class BanForm(forms.ModelForm):
    class Meta:
        model = Ban
        fields = ["session_key", "user", "reason"]

    def clean(self):
        data = super().clean()
        if not data.get("session_key") and not data.get("user"):
            raise forms.ValidationError(_("A ban needs a session key or an account."))
        return data


@admin.register(Ban)
class BanAdmin(admin.ModelAdmin):
    form = BanForm
    list_display = ["created_at", "session_short", "user", "reason", "created_by", "active"]
    list_filter = ["active", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["session_key", "user__username", "reason"]
    actions = ["lift_bans"]

    def get_readonly_fields(self, request, obj=None):
        # A ban is made once; to undo it, lift it (logged) rather than edit it.
        return ["session_key", "user", "reason", "created_by", "active"] if obj else []

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        if change:
            return
        ban = moderation.ban_create(moderator=request.user, reason=obj.reason,
                                    session_key=obj.session_key, user=obj.user)
        obj.pk = ban.pk

    @admin.display(description=_("session"))
    def session_short(self, ban):
        return ban.session_key[:8] + "…" if ban.session_key else "—"

    @_with_reason(_("Lift the selected bans"))
    def lift_bans(self, request, ban, reason):
        moderation.ban_lift(ban, moderator=request.user, reason=reason)


class OpenFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("open", _("Open")), ("resolved", _("Resolved"))]

    def queryset(self, request, queryset):
        if self.value() == "open":
            return queryset.filter(resolved=False)
        if self.value() == "resolved":
            return queryset.filter(resolved=True)
        return queryset


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ["created_at", "room_link", "reason", "seat_shown", "note", "resolved",
                    "replay"]
    list_filter = [OpenFilter, "reason", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["room__code", "note"]
    list_select_related = ["room", "game"]
    actions = ["resolve_reports"]

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in Report._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("room"), ordering="room__code")
    def room_link(self, report):
        return format_html('<a href="{}">{} ({})</a>',
                           reverse("admin:rooms_room_change", args=[report.room_id]),
                           report.room.code, report.room.status)

    @admin.display(description=_("seat"))
    def seat_shown(self, report):
        return "—" if report.seat is None else report.seat + 1

    @admin.display(description=_("replay"))
    def replay(self, report):
        game = report.game or report.room.games.order_by("-number").first()
        return _replay_link(game)

    @_with_reason(_("Mark the selected reports resolved"))
    def resolve_reports(self, request, report, reason):
        moderation.report_resolve(report, moderator=request.user, reason=reason)


@admin.register(ModerationLog)
class ModerationLogAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "moderator", "action", "room", "target", "reason"]
    list_filter = ["action", "moderator", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["room__code", "target", "reason"]
    list_select_related = ["room", "moderator"]
    actions = ["ban_players"]

    @_with_reason(_("Ban the players these actions were about (a player already removed too)"))
    def ban_players(self, request, entry, reason):
        moderation.ban_logged_player(entry, moderator=request.user, reason=reason)
