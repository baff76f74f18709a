"""What a finished game's record says: the game page's summary, the verdict of
the fair-dice check, the replay's frames and the luck report, and a player's
totals per game. (The database reads, a player's games among them, are in
``rooms.selectors``.)

A player is their account *or* their browser session: guests have seats keyed by
session, and when a guest signs up or signs in those seats are given the
account (``attach_guest_history``), so the history follows them across devices.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.record import (
    RecordError,
    check_shape,
    dice_of_record,
    replay,
    rolls,
    steps,
    verify_record_dice,
)
from games.registry import declaration, get_game

from . import errors
from .models import Ban, Game, Seat
from .selectors import PlayedGame

# ---- a player's games ------------------------------------------------------------


def attach_guest_history(*, old_session_key: str, new_session_key: str, user) -> int:
    """After sign-up or sign-in: the guest's seats (and any ban on the guest)
    follow the account. Django gives the session a new key at login, so seats
    move to the new key too, or the player would lose a table they sit at."""
    if not old_session_key:
        return 0
    # Seats played for others on the same phone (pass and play) stay guests'.
    attached = Seat.objects.filter(session_key=old_session_key, user__isnull=True,
                                   on_device=False).update(user=user)
    if new_session_key and new_session_key != old_session_key:
        Seat.objects.filter(session_key=old_session_key).update(session_key=new_session_key)
        Ban.objects.filter(session_key=old_session_key).update(session_key=new_session_key)
    Ban.objects.filter(session_key=new_session_key or old_session_key, user__isnull=True,
                       active=True).update(user=user)
    return attached


def profile_stats(games: list[PlayedGame]) -> list[dict[str, Any]]:
    """Games played and won per game kind."""
    rows: dict[str, dict[str, Any]] = {}
    for played in games:
        row = rows.setdefault(played.game.game, {"game": played.game.game, "title":
                                                  get_game(played.game.game).title,
                                                  "played": 0, "won": 0})
        row["played"] += 1
        row["won"] += played.won
    return sorted(rows.values(), key=lambda r: r["game"])


# ---- one game ----------------------------------------------------------------------


def game_summary(game_row: Game, record: dict[str, Any]) -> dict[str, Any]:
    """Players, places and how long it took, for the game page."""
    placings = record["placings"]
    players = []
    for entry in record["seats"]:
        index = entry["seat"]
        players.append({
            "seat": index,
            "name": entry.get("name", ""),
            "kind": entry.get("kind"),
            "bot": entry.get("bot"),
            "place": placings.index(index) + 1 if index in placings else None,
        })
    players.sort(key=lambda p: (p["place"] is None, p["place"] or 0, p["seat"]))
    duration = None
    if game_row.finished_at and game_row.started_at:
        duration = game_row.finished_at - game_row.started_at
    return {"title": get_game(record["game"]).title, "players": players, "duration": duration,
            "duration_minutes": (round(duration.total_seconds() / 60)
                                 if duration is not None else None)}


def verify(record: dict[str, Any]) -> dict[str, Any]:
    """The independent check (games.record.replay) as a verdict for people.

    The dice are checked first, on their own: a changed die is then named at
    its own event (as the browser's check names it), not at the move after it
    that the rules no longer allow."""
    try:
        check_shape(record)
        try:
            rolled = dice_of_record(record)
        except (KeyError, TypeError, ValueError, AttributeError):
            rolled = None  # malformed events: the replay below says where
        if rolled is not None:
            verify_record_dice(record, rolled, required=record["status"] == "finished")
        result = replay(record)
    except RecordError as exc:
        return {"ok": False, "event_index": exc.event_index, "message": errors.localised(exc)}
    fairness = record.get("fairness", {})
    return {"ok": True, "event_index": None, "dice_checked": result.dice_checked,
            "server_seed_hash": fairness.get("server_seed_hash"),
            "placings": result.placings, "events": len(record["events"])}


def replay_frames(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The public view after each action, for the replay.

    Frame 0 is the start. Each frame is ``{"event": index or None, "events":
    [the events it shows], "view": the changed keys only}``: the browser builds
    the full view by merging, which keeps a long Ludo game's replay small. An
    action's frame shows the table events logged since the previous frame, the
    action's event and its consequences (``last`` is the index of the last).
    The views are the engine's own ``view_for(state, None)`` (a spectator's), so
    the replay draws exactly what the live table drew for someone watching."""
    engine = get_game(record["game"])
    events = record["events"]
    state = engine.initial_state(len(record["seats"]), record["options"])
    previous = engine.view_for(state, None)
    frames = [{"event": None, "events": [], "view": previous}]
    shown = 0  # the first event no frame shows yet
    for step in steps(engine, events, state):
        view = engine.view_for(step.state, None)
        delta = {k: v for k, v in view.items() if previous.get(k) != v}
        frames.append({"event": step.index, "last": step.last,
                       "events": events[shown : step.last + 1], "view": delta})
        previous = view
        shown = step.last + 1
    return frames


# ---- luck ----------------------------------------------------------------------------

def luck_report(record: dict[str, Any]) -> dict[str, Any]:
    """Each player's dice against what fair dice give on average.

    A game whose dice are rolled (its declaration's ``dice_shown``, Ludo and
    Snakes): the rolls each seat made (how many, sixes against the expected
    sixth, the average against 3.5). Held dice (Liar's Dice): the dice each seat
    held over all rounds, the same way (sixes, and ones, which are wild).
    The charts are drawn in the browser (static/js/luck.js), from ``faces``."""
    engine = get_game(record["game"])
    faces: dict[int, Counter] = {entry["seat"]: Counter() for entry in record["seats"]}
    for _index, by_seat in rolls(engine, record["events"]):
        for seat, dice in by_seat.items():
            if seat in faces:
                faces[seat].update(d for d in dice if isinstance(d, int))
    seats = []
    for entry in record["seats"]:
        counts = faces[entry["seat"]]
        n = sum(counts.values())
        expected = n / 6
        distribution = [counts.get(face, 0) for face in range(1, 7)]
        seats.append({
            "seat": entry["seat"],
            "name": entry.get("name", ""),
            "kind": entry.get("kind"),
            "dice": n,
            "sixes": counts.get(6, 0),
            "expected_sixes": round(expected, 1),
            "ones": counts.get(1, 0),
            "average": round(sum(f * c for f, c in counts.items()) / n, 2) if n else None,
            "expected_average": 3.5,
            "faces": distribution,
        })
    return {"game": record["game"], "kind": declaration(record["game"]).dice_shown, "seats": seats}
