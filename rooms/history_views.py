"""HTTP for finished games: the replay's frames, the luck report, and /verify/.

The game page itself is ``rooms.views.game_page``; it takes its extra context
from ``rooms.history``.
"""

from __future__ import annotations

import json

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_safe

from games.record import RecordError, check_shape

from . import errors, history, services
from .models import Game

MAX_RECORD_BYTES = 5 * 1024 * 1024


def _finished(game_id: int) -> tuple[Game, dict]:
    game_row = get_object_or_404(Game, id=game_id)
    if game_row.status == Game.Status.IN_PROGRESS:
        raise Http404("The game is still being played")
    return game_row, services.game_record(game_row)


@require_safe
def replay_json(request: HttpRequest, game_id: int) -> JsonResponse:
    _game_row, record = _finished(game_id)
    return JsonResponse({"game": record["game"], "seats": record["seats"],
                         "frames": history.replay_frames(record)})


@require_safe
def luck_json(request: HttpRequest, game_id: int) -> JsonResponse:
    """The luck report for the results screen (see history.luck_report)."""
    _game_row, record = _finished(game_id)
    return JsonResponse(history.luck_report(record))


def _read_record(request: HttpRequest) -> tuple[dict | None, dict | None, str]:
    """The pasted or uploaded record, or a verdict saying why it cannot be read."""
    upload = request.FILES.get("file")
    if upload is not None:
        if upload.size > MAX_RECORD_BYTES:
            return None, {"ok": False, "event_index": None,
                          "message": gettext("The file is too large for a game record")}, ""
        raw = upload.read()
    else:
        raw = request.POST.get("record", "").encode()
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return None, None, ""
    try:
        record = json.loads(text)
        check_shape(record)
    except json.JSONDecodeError as exc:
        # Where it breaks, in the page's words and digits (Python's own message
        # is English: "Expecting property name enclosed in double quotes").
        not_json = RecordError("This text is not valid JSON, so it cannot be a game record: "
                               "it breaks at line {line}, column {column}",
                               line=exc.lineno, column=exc.colno)
        return None, {"ok": False, "event_index": None,
                      "message": errors.localised(not_json)}, text
    except RecordError as exc:
        return None, {"ok": False, "event_index": exc.event_index,
                      "message": errors.localised(exc)}, text
    return record, None, text


@require_http_methods(["GET", "POST"])
def verify(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST record=<JSON text> or file=<upload>: the verdict, from
    the same replay the server trusts (games.record.replay). JSON when asked."""
    verdict, text = None, ""
    if request.method == "POST":
        record, verdict, text = _read_record(request)
        if record is not None:
            verdict = history.verify(record)
        if "application/json" in request.headers.get("Accept", ""):
            if verdict is None:
                verdict = {"ok": False, "event_index": None, "message": gettext("No record given")}
            return JsonResponse(verdict, status=200)
    return render(request, "verify.html", {"verdict": verdict, "text": text[:200_000]})
