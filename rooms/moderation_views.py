"""HTTP for moderation: the players' report endpoint and the staff dashboard.

Thin views: read the form, call ``rooms.moderation`` or a selector, answer.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from config.clients import client_address

from . import codes, errors, guessing, moderation, selectors, services
from .models import Report, Room
from .views import too_many_guesses

STATUS_FOR = {"not_found": 404, "rate_limited": 429}


def _actor(request: HttpRequest) -> services.Actor:
    if not request.session.session_key:
        request.session.save()
    user_id = request.user.id if request.user.is_authenticated else None
    return services.Actor(request.session.session_key, request.session.get("nickname", ""),
                          user_id)


def _wants_json(request: HttpRequest) -> bool:
    return ("application/json" in request.headers.get("Accept", "")
            or request.headers.get("X-Requested-With") == "XMLHttpRequest")


def _latest_room(code: str) -> Room | None:
    return Room.objects.filter(code=code).order_by("-created_at").first()


@require_POST
def report(request: HttpRequest, code: str) -> HttpResponse:
    """POST /r/<CODE>/report/ reason=abusive_name|cheating|spam|other, note (≤ 300
    characters, optional), seat (0-based, optional). The code counts as a guess
    (rooms.guessing) like at every other door; a room that has just closed can
    still be reported."""
    seat_raw = request.POST.get("seat", "").strip()
    try:
        guessing.look_up(code, _actor(request).session_key, client_address(request),
                         find=_latest_room)
        seat = int(seat_raw) if seat_raw else None
        moderation.report_create(
            code=code, actor=_actor(request), reason=request.POST.get("reason", ""),
            note=request.POST.get("note", ""), seat=seat,
        )
    except guessing.TooManyGuesses as refusal:
        return too_many_guesses(request, refusal)
    except ValueError:
        error = errors.BadMessage("There is no such seat")
    except errors.RoomError as exc:
        error = exc
    else:
        error = None
    if _wants_json(request):
        if error is None:
            return JsonResponse({"type": "ok", "message": _("Thank you: a moderator will look.")})
        return JsonResponse({"type": "error", "code": error.code, "message": error.localised()},
                            status=STATUS_FOR.get(error.code, 400))
    if error is None:
        messages.success(request, _("Thank you: a moderator will look."))
    else:
        messages.error(request, error.localised())
    if error is not None and error.code == "not_found":
        return redirect("home")
    return redirect("room", code=codes.normalize(code))


@require_GET
@staff_member_required
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "admin/rooms/dashboard.html", {
        # The admin's own header, sidebar and links ("Khelaghor moderation").
        **admin.site.each_context(request),
        "title": _("Dashboard"),
        "stats": selectors.dashboard_stats(),
        "open_reports": Report.objects.filter(resolved=False).count(),
        "rooms": selectors.rooms_open_now()[:50],
    })
