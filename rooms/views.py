"""HTTP around the room socket: nickname, create, quick play, join by code, the room page.

Views are thin: they read the form, call a service, and show the result or the
error's message.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from config.clients import client_address
from games import ludo
from games.registry import declaration, game_names

from . import codes, declared, errors, guessing, history, services
from .models import Game, Room
from .nicknames import BadNickname, clean_nickname, keep_on_account


def _session_key(request: HttpRequest) -> str:
    if not request.session.session_key:
        request.session.save()
    return request.session.session_key


def _actor(request: HttpRequest) -> services.Actor:
    user_id = request.user.id if request.user.is_authenticated else None
    return services.Actor(_session_key(request), request.session.get("nickname", ""), user_id)


def local_path(request: HttpRequest, target: str) -> str | None:
    """``target`` if it is a path on this site ("/r/ABCD/"), else None. Only a
    path: a bare word ("ABCD", "home") given to ``redirect`` is taken for the
    name of a view, and a ``next`` of one was a server error (500)."""
    if target.startswith("/") and url_has_allowed_host_and_scheme(
            target, {request.get_host()}, request.is_secure()):
        return target
    return None


def _safe_next(request: HttpRequest, fallback: str = "/") -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    return local_path(request, target) or fallback


def _needs_nickname(request: HttpRequest, next_url: str) -> HttpResponse | None:
    if request.session.get("nickname"):
        return None
    messages.info(request, _("Choose a nickname to play."))
    return redirect(f"{reverse('home')}?next={next_url}#nickname")


@require_POST
def nickname(request: HttpRequest) -> HttpResponse:
    try:
        request.session["nickname"] = clean_nickname(request.POST.get("name", ""))
        keep_on_account(request.user.pk, request.session["nickname"])
    except BadNickname as exc:
        messages.error(request, str(exc))  # already in the visitor's language
        return redirect(f"{reverse('home')}#nickname")
    return HttpResponseRedirect(_safe_next(request))


@require_POST
def room_new(request: HttpRequest) -> HttpResponse:
    if (response := _needs_nickname(request, reverse("home"))) is not None:
        return response
    game = request.POST.get("game", "")
    try:
        options = declared.house_rules_from_form(declaration(game), request.POST)
    except KeyError:
        options = {}  # an unknown game: room_create says so
    try:
        seats = int(request.POST.get("seats", "4"))
    except ValueError:
        seats = 0
    try:
        room = services.room_create(
            actor=_actor(request), game=game, seats=seats,
            pace=request.POST.get("pace", "normal"), options=options,
        )
    except errors.RoomError as exc:
        messages.error(request, exc.localised())
        return redirect("home")
    return redirect("room", code=room.code)


@require_POST
def play_now(request: HttpRequest, game: str) -> HttpResponse:
    if game not in game_names():
        raise Http404("Unknown game")
    if (response := _needs_nickname(request, reverse("home"))) is not None:
        return response
    try:
        room = services.play_now(actor=_actor(request), game=game,
                                 pace=request.POST.get("pace", "normal"))
    except errors.RoomError as exc:
        messages.error(request, exc.localised())
        return redirect("home")
    return redirect("room", code=room.code)


def _guessed_room(request: HttpRequest, code: str) -> Room:
    """The open room for a code a visitor gave, counted as a guess (rooms.guessing)."""
    return guessing.look_up(code, _session_key(request), client_address(request))


def too_many_guesses(request: HttpRequest, refusal: guessing.TooManyGuesses) -> HttpResponse:
    """HTTP 429 with Retry-After, as a page or (for the JSON doors) as JSON."""
    text = guessing.refusal_text(refusal.retry_after)
    wants_json = (request.path.startswith("/api/")
                  or "application/json" in request.headers.get("Accept", "")
                  or request.headers.get("X-Requested-With") == "XMLHttpRequest")
    if wants_json:
        response = JsonResponse({"type": "error", "code": refusal.code, "message": text,
                                 "retry_after": refusal.retry_after}, status=429)
    else:
        response = render(request, "rooms/rate_limited.html", {"message": text}, status=429)
    response["Retry-After"] = str(refusal.retry_after)
    return response


def _no_such_room(request: HttpRequest, code: str) -> HttpResponse:
    return render(request, "rooms/not_found.html", {"code": code[:8]}, status=404)


@require_safe
def join_by_code(request: HttpRequest) -> HttpResponse:
    typed = request.GET.get("code", "")
    try:
        room = _guessed_room(request, typed)
    except guessing.TooManyGuesses as refusal:
        return too_many_guesses(request, refusal)
    except errors.NotFound:
        return _no_such_room(request, typed)
    return redirect("room", code=room.code)


@require_safe
def room_page(request: HttpRequest, code: str) -> HttpResponse:
    normal = codes.normalize(code)
    if normal and normal != code:
        return redirect("room", code=normal)
    try:
        _guessed_room(request, code)
        snapshot = services.snapshot_for(normal, _session_key(request))
    except guessing.TooManyGuesses as refusal:
        return too_many_guesses(request, refusal)
    except errors.NotFound:
        return _no_such_room(request, code)
    share_url = request.build_absolute_uri(reverse("room", args=[normal]))
    return render(request, "rooms/room.html", {
        "code": normal, "snapshot": snapshot, "share_url": share_url,
        "board": declaration(snapshot["room"]["game"]),
        "nickname": request.session.get("nickname", ""),
    })


def invitation(snapshot: dict) -> dict:
    """What the invite link needs of a private room, for someone not seated in it:
    the game, whether it is open, and which seats are free; no names, no game."""
    room = snapshot["room"]
    return {
        "type": "invitation",
        "room": {key: room[key] for key in ("code", "game", "status", "pace", "visibility")}
        | {"seats": [{"seat": s["seat"], "kind": "open" if s["kind"] == "open" else "taken"}
                     for s in room["seats"]]},
    }


@require_safe
def room_api(request: HttpRequest, code: str) -> JsonResponse:
    """The room's snapshot as JSON. A private room answers someone without a
    seat in it with the invitation only (see ``invitation``)."""
    try:
        room = _guessed_room(request, code)
        snapshot = services.snapshot_for(room.code, _session_key(request))
    except guessing.TooManyGuesses as refusal:
        return too_many_guesses(request, refusal)
    except errors.NotFound as exc:
        return JsonResponse({"type": "error", "code": exc.code, "message": exc.localised()},
                            status=404)
    if room.visibility == Room.Visibility.PRIVATE and snapshot["you"]["seat"] is None:
        return JsonResponse(invitation(snapshot))
    return JsonResponse(snapshot)


@require_safe
def ludo_geometry(request: HttpRequest, board: str) -> JsonResponse:
    try:
        data = ludo.geometry_json(board)
    except (KeyError, ValueError):
        raise Http404("Unknown board") from None
    response = JsonResponse(data)
    response["Cache-Control"] = "public, max-age=86400"
    return response


@require_safe
def game_record(request: HttpRequest, game_id: int) -> HttpResponse:
    """The finished game's record (docs/record.md) as a download."""
    game_row = get_object_or_404(Game, id=game_id)
    if game_row.status == Game.Status.IN_PROGRESS:
        raise Http404("The record is published when the game is over")
    record = services.game_record(game_row)
    response = HttpResponse(
        json.dumps(record, ensure_ascii=False, indent=1), content_type="application/json"
    )
    response["Content-Disposition"] = (
        f'attachment; filename="khelaghor-{game_row.game}-{game_row.id}.json"'
    )
    return response


@require_safe
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game_row = get_object_or_404(Game.objects.select_related("room"), id=game_id)
    if game_row.status == Game.Status.IN_PROGRESS:
        raise Http404("The game page opens when the game is over")
    record = services.game_record(game_row)
    return render(request, "rooms/game.html", {
        "game": game_row, "record": record, "record_json": record,
        "board": declaration(game_row.game),
        "summary": history.game_summary(game_row, record),
        "verdict": history.verify(record),
        "luck": history.luck_report(record),
    })
