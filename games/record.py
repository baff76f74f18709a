"""The game record ``khelaghor.record/1`` (docs/record.md): writer, reader, replayer.

A record is a game's setup plus its ordered events. One fold (``fold``) feeds
the events back through the engine: each event that stands for an action is
applied, and every event the engine produces must match the record's next
events field by field. Every reader goes through it: ``replay`` (checked, with
the dice), the rooms' state cache (``fold``, trusting its own log), the replay's
frames; the dice list and the luck report read the rolls the same way
(``rolls``). Unknown event types and fields are ignored (forward
compatibility); anything that breaks the rules or the dice is rejected with the
event's index and a reason.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from .base import Action, Event, Game, GameError, fill_template
from .fairness import SCHEME, FairnessError, verify_dice
from .registry import get_game

FORMAT = "khelaghor.record/1"
STATUSES = ("finished", "in_progress", "aborted")


class RecordError(Exception):
    """A record that is malformed, breaks the rules or fails the dice check.

    The message is an English template with ``{placeholders}`` filled from
    keyword arguments (a catalogue string: the verify page shows it in the
    reader's language, rooms/history.py)."""

    def __init__(self, message: str, event_index: int | None = None, **params: Any) -> None:
        where = f"event {event_index}: " if event_index is not None else ""
        self.template = message
        self.params = params
        self.message = fill_template(message, params)
        super().__init__(where + self.message)
        self.event_index = event_index

    @classmethod
    def of(cls, exc: GameError | FairnessError, event_index: int | None = None) -> RecordError:
        """An engine's or the dice check's error, template and values kept."""
        params = dict(exc.params)
        if "{name}" in exc.template:
            seat = getattr(exc, "seat", None)
            params["name"] = f"seat {seat + 1}" if isinstance(seat, int) else "another player"
        return cls(exc.template, event_index, **params)


def seat_entry(seat: int, name: str, bot: str | None = None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"seat": seat, "name": name, "kind": "bot" if bot else "human"}
    if bot:
        entry["bot"] = bot
    entry.update(extra)
    return entry


def build_record(
    *,
    game: str,
    seats: list[dict[str, Any]],
    options: dict[str, Any],
    server_seed_hash: str,
    client_seed: str,
    events: list[Event],
    status: str,
    placings: list[int],
    server_seed: bytes | None = None,
) -> dict[str, Any]:
    """A record object in the normative key order. The server seed is only
    included when given: the caller reveals it once the game is over."""
    fairness: dict[str, Any] = {"scheme": SCHEME, "server_seed_hash": server_seed_hash}
    if server_seed is not None:
        fairness["server_seed"] = server_seed.hex()
    fairness["client_seed"] = client_seed
    return {
        "format": FORMAT,
        "game": game,
        "seats": seats,
        "options": options,
        "fairness": fairness,
        "events": events,
        "status": status,
        "placings": placings,
    }


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def loads(text: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError("Not JSON: {error}", error=str(exc)) from None
    check_shape(record)
    return record


def check_shape(record: Any) -> None:
    """The structure of docs/record.md §1, before any rule is looked at."""
    if not isinstance(record, dict):
        raise RecordError("A record is a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError("Unknown format {value}; expected {expected}",
                          value=repr(record.get("format")), expected=FORMAT)
    for key, kind in (("game", str), ("seats", list), ("options", dict), ("fairness", dict),
                      ("events", list), ("status", str), ("placings", list)):
        if not isinstance(record.get(key), kind):
            raise RecordError("Field {field} is missing or has the wrong type", field=repr(key))
    if record["status"] not in STATUSES:
        raise RecordError("Unknown status {value}", value=repr(record["status"]))
    for i, seat in enumerate(record["seats"]):
        if not isinstance(seat, dict) or seat.get("seat") != i:
            raise RecordError("Seat entry {seat} must be an object with \"seat\": {seat}", seat=i)
        if seat.get("kind") not in ("human", "bot"):
            raise RecordError("Seat {seat} has an unknown kind {kind}", seat=i,
                              kind=repr(seat.get("kind")))
    fairness = record["fairness"]
    if fairness.get("scheme") != SCHEME:
        raise RecordError("Unknown fairness scheme {value}", value=repr(fairness.get("scheme")))
    if not isinstance(fairness.get("server_seed_hash"), str) or not isinstance(
        fairness.get("client_seed"), str
    ):
        raise RecordError("The fairness block needs server_seed_hash and client_seed")
    for i, event in enumerate(record["events"]):
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise RecordError("Every event is an object with a type", i)


@dataclass
class Replay:
    game: Game
    state: Any
    dice_checked: int | None  # None when the server seed is not revealed yet
    placings: list[int]


def _same(game: Game, produced: Event, recorded: Event) -> bool:
    fields = game.record_event_fields.get(produced["type"])
    if fields is None:
        return produced == {k: recorded.get(k) for k in produced}
    return all(produced.get(f) == recorded.get(f) for f in fields)


def _describe(event: Event) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


# ---- the fold ----------------------------------------------------------------------


class Step(NamedTuple):
    """One action of a record, applied by the fold."""

    index: int  # the event that stands for the action
    last: int  # its last consequence's event (``index`` when it has none)
    seat: int | None
    action: Action
    state: Any  # the state after the action and its consequences


def fold(
    game: Game,
    events: Iterable[Event],
    state: Any,
    *,
    check: bool = False,
    each: Callable[[Step], object] | None = None,
) -> Any:
    """The one fold over a record: feed ``events`` through ``game`` from
    ``state`` and return the state after them. ``each`` is called with every
    action once its consequences have been read.

    Event types the game does not write (timeouts, takeovers, ...) are skipped.
    Each event that stands for an action is applied; the events the engine
    produces after the first are its consequences, and the record's next events
    of the game's types must be those. With ``check`` they are compared field by
    field and anything that breaks the rules raises RecordError naming the event.
    Without it the log is trusted (the site wrote it through the engine) and a
    consequence is only skipped: the state cache moves a cached state on this
    way by the events logged since, on the move path, so it builds no ``Step``
    unless ``each`` asks for them."""
    known = game.record_event_types
    apply, action_from_event = game.apply, game.action_from_event  # bound once: hot loop
    owed: list[Event] = []  # consequences still to be read, the next one last
    first = last = -1  # the events of the action they belong to, so far
    seat: int | None = None
    action: Action = {}
    for index, event in enumerate(events):
        if event.get("type") not in known:
            continue
        if owed:
            expected = owed.pop()
            if check and (expected["type"] != event["type"] or not _same(game, expected, event)):
                raise RecordError("expected {expected} but the record has {event}", index,
                                  expected=_describe(expected), event=_describe(event))
            last = index
            if not owed and each is not None:
                each(Step(first, last, seat, action, state))
            continue
        try:
            mapped = action_from_event(event)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            if not check:
                raise
            mapped = None
        if mapped is None:
            if check:
                raise RecordError("a {type} event cannot happen here", index, type=event["type"])
            continue  # a consequence of an action before ``state``
        seat, action = mapped
        if check:
            if game.turn(state) is None:
                raise RecordError("the game was already over", index)
            if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
                # 1.0 passed "seat == to_move" and then failed as an index.
                raise RecordError("a {type} event cannot happen here", index, type=event["type"])
            try:
                state, produced = apply(state, seat, action)
            except GameError as exc:
                raise RecordError.of(exc, index) from None
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                # A record from outside is checked, never trusted: a field the
                # engine cannot read is this event's fault, not a crash of the
                # checker (the verify page answered 500).
                raise RecordError("a {type} event cannot happen here", index,
                                  type=event["type"]) from None
            if not produced or not _same(game, produced[0], event):
                first_produced = _describe(produced[0]) if produced else "nothing"
                raise RecordError("the rules give {event} for this action", index,
                                  event=first_produced)
        else:
            state, produced = apply(state, seat, action)
        first = last = index
        if len(produced) > 1:
            owed = produced[:0:-1]
        elif each is not None:
            each(Step(first, last, seat, action, state))
    if owed:
        if check:
            raise RecordError("the record ends before {event}", event=_describe(owed[-1]))
        if each is not None:  # a trusted log read up to a consequence
            each(Step(first, last, seat, action, state))
    return state


def steps(game: Game, events: Iterable[Event], state: Any, *, check: bool = False
          ) -> list[Step]:
    """Every action of ``events`` as the fold applies it, in order."""
    out: list[Step] = []
    fold(game, events, state, check=check, each=out.append)
    return out


def rolls(game: Game, events: Iterable[Event]) -> Iterator[tuple[int, dict[int, list[int]]]]:
    """Every roll of a record: its event index and the dice by seat, in nonce
    order. Read without applying the rules, so that a changed die is found at
    its own event whatever the rules make of the moves after it."""
    known = game.record_event_types
    for index, event in enumerate(events):
        if event.get("type") in known:
            dice = game.dice_by_seat(event)
            if dice:
                yield index, dice


def replay(record: dict[str, Any], *, check_dice: bool = True) -> Replay:
    """Rebuild the final state of ``record``; raise RecordError at the first
    event that breaks the rules, the dice or the status."""
    check_shape(record)
    try:
        game = get_game(record["game"])
    except KeyError:
        raise RecordError("Unknown game {value}", value=repr(record["game"])) from None
    num_players = len(record["seats"])
    try:
        game.check_players(num_players)
        options = game.resolve_options(num_players, record["options"])
    except GameError as exc:
        raise RecordError.of(exc) from None
    if options != record["options"]:
        raise RecordError("The options must list every option with its value, defaults included")
    state = game.initial_state(num_players, options)
    for seat_index, entry in enumerate(record["seats"]):
        for key, value in game.record_seat_extra(state, seat_index).items():
            if entry.get(key) != value:
                raise RecordError("Seat {seat} must have {key} {value}", seat=seat_index, key=key,
                                  value=value)

    events = record["events"]
    rolled: list[tuple[int, list[int]]] = []

    def note_dice(step: Step) -> None:
        dice = game.dice_in_event(events[step.index])
        if dice:
            rolled.append((step.index, dice))

    state = fold(game, events, state, check=True, each=note_dice)

    over = game.turn(state) is None
    placings = game.placings(state)
    status = record["status"]
    if status == "finished":
        if not over:
            raise RecordError("the record says finished but the game is not over")
        if record["placings"] != placings:
            raise RecordError("the placings are {placings}, not {recorded}", placings=placings,
                              recorded=record["placings"])
    elif status == "in_progress" and over:
        raise RecordError("the game is over but the record says in_progress")

    dice_checked = None
    if check_dice:
        dice_checked = verify_record_dice(record, rolled, required=status == "finished")
    return Replay(game=game, state=state, dice_checked=dice_checked, placings=placings)


def verify_record_dice(
    record: dict[str, Any], rolled: list[tuple[int, list[int]]], *, required: bool
) -> int | None:
    fairness = record["fairness"]
    seed_hex = fairness.get("server_seed")
    if seed_hex is None:
        if required:
            raise RecordError("a finished game's record must reveal the server seed")
        return None
    try:
        server_seed = bytes.fromhex(seed_hex)
    except (TypeError, ValueError):
        raise RecordError("the server seed is not hex") from None
    if hashlib.sha256(server_seed).hexdigest() != fairness["server_seed_hash"]:
        raise RecordError("the server seed does not match the hash shown before the game")
    try:
        return verify_dice(server_seed, fairness["client_seed"], rolled)
    except FairnessError as exc:
        raise RecordError.of(exc, exc.event_index) from None


def dice_of_record(record: dict[str, Any]) -> list[tuple[int, list[int]]]:
    """Every die of a record by event index, in nonce order."""
    game = get_game(record["game"])
    return [
        (index, [die for seat in sorted(dice) for die in dice[seat]])
        for index, dice in rolls(game, record["events"])
    ]
