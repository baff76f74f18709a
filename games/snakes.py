"""Snakes & Ladders (সাপ-লুডু), docs/rules.md §3.

Rule choices, by number in docs/rules.md §3:
- 2-4 players, one token each, off the board on square 0.
- Off the board only a 6 starts the token, straight onto square 6; any ladder or
  snake on 6 applies to that entry too.
- On the board the token moves by the roll; the only decision is to roll.
- One jump per move: boards may not chain a jump's end onto another jump's start
  (``Board.validate``).
- A 6 earns another roll, the starting 6 and an overshooting 6 included; there is
  no limit on consecutive 6s.
- Reaching 100 needs the exact count; an overshooting roll leaves the token put.
- A token on 100 is finished and rolls no more; the others play on for places
  until one is left, who takes last place.

Record events: ``roll`` for every die, ``move`` whenever the token's square
changes (``to`` after the ladder or snake). A roll whose climb or slide brings
the token back to where it stood changes no square and has no move event.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .base import (
    Action,
    Applied,
    Declaration,
    DiceField,
    Event,
    Game,
    HouseRule,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    Option,
    Turn,
    action_from_roll_event,
    dice_of_roll_event,
    gettext_noop,
    next_seat,
    require_dice,
    roll_event,
)

FINISH = 100
ENTRY_ROLL = 6
ENTRY_SQUARE = 6

# Ladder foot -> top, snake head -> tail. The classic layout of docs/rules.md §3.5.
BOARDS: dict[str, dict[str, dict[str, int]]] = {
    "classic": {
        "ladders": {"1": 38, "4": 14, "9": 31, "21": 42, "28": 84, "36": 44, "51": 67,
                    "71": 91, "80": 100},
        "snakes": {"16": 6, "47": 26, "49": 11, "56": 53, "62": 19, "64": 60, "87": 24,
                   "93": 73, "95": 75, "98": 78},
    },
    # A gentler board for new players: shorter snakes, more small ladders.
    "gentle": {
        "ladders": {"3": 22, "5": 8, "11": 26, "20": 29, "27": 56, "36": 55, "50": 69,
                    "57": 76, "71": 92, "81": 99},
        "snakes": {"17": 4, "19": 7, "32": 30, "34": 12, "48": 45, "63": 59, "74": 53,
                   "87": 66, "93": 85, "97": 78},
    },
}


@dataclass(frozen=True)
class Board:
    """A board as data: one jump table over squares 0..100."""

    ladders: dict[int, int]
    snakes: dict[int, int]

    @classmethod
    def from_option(cls, value: Any) -> Board:
        if isinstance(value, str):
            if value not in BOARDS:
                raise InvalidOptions("Unknown board {value}; known boards: {boards}",
                                     value=repr(value), boards=", ".join(sorted(BOARDS)))
            value = BOARDS[value]
        if not isinstance(value, dict) or set(value) - {"ladders", "snakes"}:
            raise InvalidOptions("A board is an object with 'ladders' and 'snakes'")
        try:
            ladders = {int(k): int(v) for k, v in value.get("ladders", {}).items()}
            snakes = {int(k): int(v) for k, v in value.get("snakes", {}).items()}
        except (TypeError, ValueError, AttributeError):
            raise InvalidOptions("Board squares must be whole numbers") from None
        board = cls(ladders, snakes)
        board.validate()
        return board

    def validate(self) -> None:
        starts = list(self.ladders) + list(self.snakes)
        if len(set(starts)) != len(starts):
            raise InvalidOptions("Two jumps start on the same square")
        for foot, top in self.ladders.items():
            if not (1 <= foot < top <= FINISH):
                raise InvalidOptions("Ladder {foot}→{top} must climb within squares 1..100",
                                     foot=foot, top=top)
        for head, tail in self.snakes.items():
            if not (1 <= tail < head < FINISH):
                raise InvalidOptions("Snake {head}→{tail} must slide down within squares 1..99",
                                     head=head, tail=tail)
        for end in list(self.ladders.values()) + list(self.snakes.values()):
            if end in self.ladders or end in self.snakes:
                raise InvalidOptions("Square {end} ends one jump and starts another", end=end)

    def land(self, square: int) -> int:
        """Where a token that ends its move on ``square`` comes to rest."""
        return self.ladders.get(square) or self.snakes.get(square) or square

    def as_option(self) -> dict[str, dict[str, int]]:
        return {
            "ladders": {str(k): v for k, v in sorted(self.ladders.items())},
            "snakes": {str(k): v for k, v in sorted(self.snakes.items())},
        }


@dataclass(frozen=True)
class SnakesState:
    board: Board
    squares: tuple[int, ...]
    to_move: int | None  # None once the game is over
    placings: tuple[int, ...]
    last_roll: int | None = None
    rolls_in_a_row: int = 0  # consecutive rolls of the seat to move (for the UI)

    @property
    def num_players(self) -> int:
        return len(self.squares)

    @property
    def over(self) -> bool:
        """Every seat is placed: all but one reached 100, the last takes last place."""
        return len(self.placings) == len(self.squares)


class Snakes(Game[SnakesState]):
    name = "snakes"
    title = "Snakes & Ladders"
    min_players = 2
    max_players = 4
    options = (
        Option("first_player", 0, help="The seat that rolls first."),
        Option(
            "board", "classic", help="A board name or a board object.",
            parse=lambda value: Board.from_option(value).as_option(),
        ),
    )
    record_event_types = ("roll", "move")
    views_alike = True  # nothing in Snakes & Ladders is hidden
    record_event_fields = {
        "roll": ("type", "seat", "value"),
        "move": ("type", "seat", "from", "to"),
    }

    def initial_state(
        self, num_players: int, options: dict[str, Any] | None = None
    ) -> SnakesState:
        self.check_players(num_players)
        options = self.resolve_options(num_players, options)
        return SnakesState(
            board=Board.from_option(options["board"]),
            squares=(0,) * num_players,
            to_move=options["first_player"],
            placings=(),
        )

    def turn(self, state: SnakesState) -> Turn | None:
        if state.over:
            return None
        return Turn(seat=state.to_move, dice=1)

    def legal_actions(self, state: SnakesState, seat: int) -> list[Action]:
        return [{"type": "roll"}] if state.to_move == seat else []

    def apply(self, state: SnakesState, seat: int | None, action: Action) -> Applied[SnakesState]:
        if state.over:
            raise IllegalAction("The game is over")
        if seat != state.to_move:
            raise NotYourTurn("It is not your turn to roll")
        if not isinstance(action, dict) or action.get("type") != "roll":
            raise IllegalAction("In Snakes & Ladders the only action is to roll")
        (value,) = require_dice(action, 1)

        events = [roll_event(seat, value)]
        here = state.squares[seat]
        if here == 0:
            target = ENTRY_SQUARE if value == ENTRY_ROLL else None
        else:
            target = here + value if here + value <= FINISH else None
        squares = state.squares
        if target is not None:
            there = state.board.land(target)
            if there != here:
                events.append({"type": "move", "seat": seat, "from": here, "to": there})
                squares = squares[:seat] + (there,) + squares[seat + 1 :]

        placings = state.placings
        if squares[seat] == FINISH:
            placings = placings + (seat,)
            unfinished = [s for s in range(len(squares)) if s not in placings]
            if len(unfinished) == 1:
                placings = placings + (unfinished[0],)
                return replace(
                    state, squares=squares, to_move=None, placings=placings, last_roll=value,
                    rolls_in_a_row=0,
                ), events
        if value == 6 and seat not in placings:
            to_move, in_a_row = seat, state.rolls_in_a_row + 1
        else:
            to_move, in_a_row = next_seat(seat, len(squares), placings), 0
        return replace(
            state, squares=squares, to_move=to_move, placings=placings, last_roll=value,
            rolls_in_a_row=in_a_row,
        ), events

    def view_for(self, state: SnakesState, seat: int | None) -> dict[str, Any]:
        # Nothing in Snakes & Ladders is hidden: every seat sees the same.
        return {
            "game": self.name,
            "board": state.board.as_option(),
            "squares": list(state.squares),
            "to_move": state.to_move,
            "placings": list(state.placings),
            "last_roll": state.last_roll,
            "over": state.over,
        }

    def placings(self, state: SnakesState) -> list[int]:
        return list(state.placings)

    def action_from_event(self, event: Event) -> tuple[int | None, Action] | None:
        # A move is the roll's consequence: compared on replay, never applied.
        return action_from_roll_event(event) if event.get("type") == "roll" else None

    def dice_by_seat(self, event: Event) -> dict[int, list[int]]:
        return dice_of_roll_event(event)


GAME = Snakes()

# What the site knows about Snakes & Ladders (games/registry.py lists it).
DECLARATION = Declaration(
    engine=GAME,
    slug="snakes-and-ladders",
    title=gettext_noop("Snakes & Ladders"),
    default_seats=2,
    quick_play_seats=4,
    standard_bot="standard",
    easy_bot=None,
    dice_shown="rolled",
    dice_fields=(DiceField("roll", "value"),),
    rules_template="rules/snakes.html",
    script="js/snakes.js",
    # No decisions in Snakes & Ladders: every computer is an average player.
    bot_ratings={"random": 25.0, "standard": 25.0},
    finish_at_once=True,
    icon_template="rooms/icons/snakes.html",
    house_rules=(HouseRule("board"),),
)
