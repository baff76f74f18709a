"""The one small interface every Khelaghor game implements.

A game is a pure rules object: no Django, no I/O, no clock, no global random.
State values are immutable; ``apply`` returns a new state and the record events
(docs/record.md §2) that the action produced. Dice are inputs: when the pending
decision is a roll, ``Turn.dice`` says how many dice it consumes, and whoever
applies the action (the room layer, the simulator, a test) draws them from the
fair roll stream and puts them in the action as ``{"type": "roll", "dice": [...]}``.

Actions are small JSON objects. A player or bot says *what* it wants
(``{"type": "roll"}``, ``{"type": "move", "token": 2}``, ``{"type": "bid",
"quantity": 3, "face": 4}``); the roll's values are added by the table.

The design follows OpenSpiel (one API for every game, chance nodes) and
scalachess (illegal actions are refused with a sentence a player can read).
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

Action = dict[str, Any]
Event = dict[str, Any]
S = TypeVar("S")  # a game's state type
Applied = tuple[S, list[Event]]  # what ``apply`` returns: the new state and the events


def N_(message: str) -> str:
    """Marks an English sentence as a catalogue string without translating it
    (engines stay Django-free): ``make messages`` extracts ``N_("...")`` and
    the first argument of every error class here, and the room layer
    translates them for each player (rooms/errors.py)."""
    return message


class GameError(Exception):
    """Base of every error the engines raise. ``code`` is for machines, the
    message is for people.

    The message is a template in English, a catalogue string: numbers and
    words go in ``{placeholders}`` given as keyword arguments
    (``IllegalAction("There is no token {token}", token=5)``), never in an
    f-string, so that the room layer can translate the template and then fill
    it. ``seat`` fills ``{name}``: engines know seats, the table knows names."""

    code = "game_error"

    def __init__(self, message: str, seat: int | None = None, **params: Any) -> None:
        self.template = message
        self.seat = seat
        self.params = params
        self.extra = {"seat": seat, **params}
        super().__init__(fill_template(message, {"name": _seat_label(seat), **params}))
        self.message = str(self)

    def for_players(self, names: list[str]) -> str:
        """The message with ``{name}`` filled in with the player's name."""
        if isinstance(self.seat, int) and 0 <= self.seat < len(names):
            return fill_template(self.template, {**self.params, "name": names[self.seat]})
        return self.message


def fill_template(template: str, params: dict[str, Any]) -> str:
    """``template`` with each ``{key}`` replaced by its value (English text)."""
    for key, value in params.items():
        template = template.replace("{" + key + "}", str(value))
    return template


def _seat_label(seat: Any) -> str:
    return f"the player in seat {seat + 1}" if isinstance(seat, int) else "another player"


class IllegalAction(GameError):
    code = "illegal_action"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class InvalidOptions(GameError):
    code = "invalid_options"


class InvalidSetup(GameError):
    code = "invalid_setup"


@dataclass(frozen=True)
class Turn:
    """Whose decision is pending.

    ``seat`` is the seat that must act, or None for a chance event nobody
    decides (a Liar's Dice deal), which the table applies at once.
    ``dice`` is how many dice the action consumes from the fair stream (0 for a
    choice). ``forced`` is the action to apply without waiting when the player
    has no real choice (one legal choice, or several identical ones)."""

    seat: int | None
    dice: int = 0
    forced: Action | None = None

    @property
    def is_roll(self) -> bool:
        return self.dice > 0


@dataclass(frozen=True)
class Option:
    """One declared option: its default and the values allowed. ``parse``, when
    given, validates and normalises a value itself (raising InvalidOptions)."""

    name: str
    default: Any
    choices: tuple[Any, ...] | None = None
    help: str = ""
    parse: Callable[[Any], Any] | None = None

    def check(self, value: Any) -> Any:
        if self.parse is not None:
            return self.parse(value)
        # Exact types: JSON's true must not pass for 1, nor 1 for true.
        if type(value) is not type(self.default):
            raise InvalidOptions("Option {option} has the wrong type: {value}",
                                 option=self.name, value=repr(value))
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise InvalidOptions("Option {option} must be one of {allowed}, not {value}",
                                 option=self.name, allowed=allowed, value=repr(value))
        return value


class Game(Generic[S]):
    """Base class. Subclasses are stateless singletons; all state is in values
    of their own state type ``S`` (``class Ludo(Game[LudoState])``).

    A game is over when every seat is placed: ``placings`` is then complete
    and ``turn`` returns None. That is the one way to say it; every reader
    (the record, the room, the simulator) asks ``turn(state) is None``."""

    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    options: tuple[Option, ...] = ()
    # True when nothing is hidden: ``view_for`` and ``event_for`` give every
    # seat and spectators the same, so the site renders one view per move for
    # all of them (rooms.publish). Games with secrets keep the default.
    views_alike: bool = False

    # ---- options -----------------------------------------------------------

    def resolve_options(self, num_players: int, given: dict[str, Any] | None) -> dict[str, Any]:
        """All options with defaults filled in, validated. Unknown names are an error."""
        given = dict(given or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise InvalidOptions("Unknown option for {game}: {options}",
                                 game=self.name, options=", ".join(unknown))
        resolved = {}
        for opt in self.options:
            resolved[opt.name] = opt.check(given.get(opt.name, opt.default))
        if "first_player" in resolved:
            fp = resolved["first_player"]
            if not isinstance(fp, int) or isinstance(fp, bool) or not 0 <= fp < num_players:
                raise InvalidOptions("first_player must be a seat from 0 to {last}",
                                     last=num_players - 1)
        return self.check_options(num_players, resolved)

    def check_options(self, num_players: int, options: dict[str, Any]) -> dict[str, Any]:
        """Game-specific checks and derived defaults; returns the options."""
        return options

    def check_players(self, num_players: int) -> None:
        if not self.min_players <= num_players <= self.max_players:
            raise InvalidSetup(
                "{game} is for {low} to {high} players, not {count}", game=self.title,
                low=self.min_players, high=self.max_players, count=num_players,
            )

    # ---- the interface -----------------------------------------------------

    def initial_state(self, num_players: int, options: dict[str, Any] | None = None) -> S:
        raise NotImplementedError

    def turn(self, state: S) -> Turn | None:
        """The pending decision, or None when the game is over (every seat placed)."""
        raise NotImplementedError

    def legal_actions(self, state: S, seat: int) -> list[Action]:
        """What ``seat`` may do now ([] when it is not their turn). Roll actions
        are listed without their dice: ``{"type": "roll"}``."""
        raise NotImplementedError

    def apply(self, state: S, seat: int | None, action: Action) -> Applied[S]:
        """Apply ``action`` by ``seat``; return the new state and the record events.
        Raises NotYourTurn or IllegalAction and leaves ``state`` untouched."""
        raise NotImplementedError

    def view_for(self, state: S, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` may see (None: a spectator), as JSON-ready data.
        The only way hidden information leaves the engine."""
        raise NotImplementedError

    def placings(self, state: S) -> list[int]:
        """Seats in finishing order so far; complete exactly when the game is over."""
        raise NotImplementedError

    def with_hidden_redrawn(self, state: S, seat: int, rng: Any) -> S:
        """The same state with every hidden thing ``seat`` cannot see drawn anew
        (other seats' dice). Tests use it to prove ``view_for(state, seat)``
        depends on nothing ``seat`` may not know. Games without secrets return
        ``state``."""
        return state

    def event_for(self, event: Event, seat: int | None) -> Event:
        """A record event as ``seat`` may see it live (None: a spectator). Games
        with secrets redact them here (a Liar's Dice deal shows only your dice)."""
        return event

    # ---- the record --------------------------------------------------------

    record_event_types: tuple[str, ...] = ()
    """Event types this game writes to the record; others are ignored on replay."""

    record_event_fields: dict[str, tuple[str, ...]] = {}
    """For each event type, the fields that are compared on replay."""

    def action_from_event(self, event: Event) -> tuple[int | None, Action] | None:
        """The action a record event stands for, or None for events that are
        consequences of an earlier action (they are compared, not applied)."""
        raise NotImplementedError

    def dice_by_seat(self, event: Event) -> dict[int, list[int]]:
        """The dice an event rolled, by the seat they were rolled for ({} for
        events without dice). The one reading of dice in the record: the dice
        list, the fairness check and the luck report all go through it."""
        return {}

    def dice_in_event(self, event: Event) -> list[int]:
        """The dice an event rolled, in nonce order (docs/record.md §3): seats
        ascending, each seat's dice in the order rolled."""
        by_seat = self.dice_by_seat(event)
        return [die for seat in sorted(by_seat) for die in by_seat[seat]]

    def record_seat_extra(self, state: S, seat: int) -> dict[str, Any]:
        """Game-specific fields of a record's seat entry (Ludo's ``arm``)."""
        return {}


def next_seat(seat: int, num_players: int, out: Container[int]) -> int:
    """The next seat clockwise from ``seat`` that is not ``out`` (placed, or
    without dice). Turns pass this way in every game."""
    for step in range(1, num_players + 1):
        candidate = (seat + step) % num_players
        if candidate not in out:
            return candidate
    raise AssertionError("every seat is out")


# ---- one die per roll (Ludo, Snakes & Ladders) ------------------------------------
# A roll of one die is the action {"type": "roll", "dice": [value]} and the
# record event {"type": "roll", "seat": seat, "value": value}.


def roll_event(seat: int, value: int) -> Event:
    return {"type": "roll", "seat": seat, "value": value}


def action_from_roll_event(event: Event) -> tuple[int | None, Action]:
    """The roll a ``roll`` event stands for."""
    return event.get("seat"), {"type": "roll", "dice": [event.get("value")]}


def dice_of_roll_event(event: Event) -> dict[int, list[int]]:
    return {event.get("seat"): [event["value"]]} if event.get("type") == "roll" else {}


def require_dice(action: Action, count: int) -> list[int]:
    dice = action.get("dice")
    if (
        not isinstance(dice, list)
        or len(dice) != count
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
    ):
        raise IllegalAction("This roll needs {count} dice with faces 1 to 6", count=count)
    return dice


# ---- the declaration: everything the site knows about a game ----------------------


def gettext_noop(message: str) -> str:
    """Marks ``message`` for translation without translating it: `make messages`
    finds this name, and the site translates the string where it shows it.
    Engines stay free of Django."""
    return message


@dataclass(frozen=True)
class HouseRule:
    """An engine option a private table's host may choose. ``label`` is the
    host's checkbox (a yes/no option) in the create form and the lobby; a rule
    without one is accepted from the API but not offered on the page."""

    name: str
    label: str = ""


@dataclass(frozen=True)
class DiceField:
    """Where a record event holds its dice: ``event[field]`` is one die, or with
    ``by_seat`` a ``{seat: [dice]}`` object (nonce order: seats ascending). The
    browser's fairness check (static/js/verify.js) reads dice this way; it
    must agree with the engine's ``dice_by_seat`` (tests/games/test_declarations.py)."""

    event: str
    field: str
    by_seat: bool = False


@dataclass(frozen=True)
class Declaration:
    """One game as the site sees it, declared once next to its engine and listed
    in games/registry.py. Strings for people are English, marked with
    ``gettext_noop``; the site translates them."""

    engine: Game
    slug: str  # in URLs: /rules/<slug>/
    title: str  # marked with gettext_noop
    default_seats: int  # the create form's choice
    quick_play_seats: int  # a public table's size
    standard_bot: str  # the computer that fills seats and plays for the absent
    easy_bot: str | None  # the easier kind a host may choose, or None
    dice_shown: str  # the luck report: "held" (dice in a cup) or "rolled"
    dice_fields: tuple[DiceField, ...]
    rules_template: str  # e.g. "rules/ludo.html"
    script: str  # the board's renderer, a static path: "js/ludo.js"
    icon_template: str  # an inline SVG: "rooms/icons/ludo.html"
    stylesheet: str = ""  # a static path, loaded on the table's pages; "" for none
    house_rules: tuple[HouseRule, ...] = ()
    seats_hint: tuple[int, str] | None = None  # (from this many seats, a sentence)
    replay_pace_ms: int = 800  # one replay step while playing back
    # Computer players as rated opponents: mu per kind (accounts_optional.ratings;
    # measured by scripts/calibrate_bot_ratings.py). A kind not listed counts as average.
    bot_ratings: dict[str, float] = field(default_factory=dict)
    # The stronger kind a host may choose, or None: it thinks longer per move
    # (a search on top of ``standard``), so it never fills seats or holds them.
    expert_bot: str | None = None
    # Once only computers are left to be placed, play the rest in one command
    # (every roll still drawn and recorded): a Snakes winner need not watch a
    # hundred computer rolls. Games whose late decisions people watch keep the pace.
    finish_at_once: bool = False

    @property
    def id(self) -> str:
        return self.engine.name

    @property
    def min_players(self) -> int:
        return self.engine.min_players

    @property
    def max_players(self) -> int:
        return self.engine.max_players

    @property
    def event_types(self) -> tuple[str, ...]:
        return self.engine.record_event_types

    @property
    def secret_hands(self) -> bool:
        """Some of what a player sees is hidden from the others (Liar's Dice's
        cups): one phone passed between players must never show one player's
        hand to the next. The engine's ``views_alike`` says it once, for the
        broadcast too; a game that does not declare it is treated as secret."""
        return not self.engine.views_alike

    @property
    def house_rule_names(self) -> tuple[str, ...]:
        return tuple(rule.name for rule in self.house_rules)

    def dice_of(self, event: Event) -> list[int]:
        """The dice of ``event`` read the declared way (what verify.js does)."""
        out: list[int] = []
        for spec in self.dice_fields:
            if event.get("type") != spec.event or spec.field not in event:
                continue
            value = event[spec.field]
            if spec.by_seat:
                for seat in sorted(value, key=int):
                    out.extend(value[seat])
            else:
                out.append(value)
        return out
