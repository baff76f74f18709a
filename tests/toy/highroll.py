"""High Roll, a fourth game that lives only in the tests: it proves that a game
is its own files plus one registry line (issue #15). Two players roll one die
each in turn; the higher roll wins (the lower, with the option ``low_wins``);
a tie and both roll again.

Record events: ``roll`` for every die, ``result`` after the deciding roll (its
consequence, compared on replay). This module is the engine, its computer
player and its declaration; its board script, icon and rules page are the
files beside it (tests/toy/static, tests/toy/templates).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from games.base import (
    Action,
    Applied,
    Declaration,
    DiceField,
    Event,
    Game,
    HouseRule,
    IllegalAction,
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
from games.bots import Bot, register


@dataclass(frozen=True)
class HighRollState:
    low_wins: bool
    rolls: tuple[int | None, ...]  # this round's roll of each seat
    to_move: int | None  # None once the game is over
    placings: tuple[int, ...]


class HighRoll(Game[HighRollState]):
    name = "highroll"
    title = "High Roll"
    min_players = 2
    max_players = 2
    options = (Option("low_wins", False, help="The lower roll wins instead."),)
    record_event_types = ("roll", "result")
    record_event_fields = {"roll": ("type", "seat", "value"), "result": ("type", "winner")}

    def initial_state(self, num_players: int, options: dict[str, Any] | None = None):
        self.check_players(num_players)
        options = self.resolve_options(num_players, options)
        return HighRollState(options["low_wins"], (None,) * num_players, 0, ())

    def turn(self, state: HighRollState) -> Turn | None:
        return None if state.to_move is None else Turn(seat=state.to_move, dice=1)

    def legal_actions(self, state: HighRollState, seat: int) -> list[Action]:
        return [{"type": "roll"}] if state.to_move == seat else []

    def apply(self, state: HighRollState, seat: int | None, action: Action) -> Applied:
        if state.to_move is None:
            raise IllegalAction("The game is over")
        if seat != state.to_move:
            raise NotYourTurn("It is not your turn to roll")
        if not isinstance(action, dict) or action.get("type") != "roll":
            raise IllegalAction("In High Roll the only action is to roll")
        (value,) = require_dice(action, 1)
        rolls = state.rolls[:seat] + (value,) + state.rolls[seat + 1 :]
        if None in rolls:
            return replace(state, rolls=rolls, to_move=next_seat(seat, len(rolls), ())), [
                roll_event(seat, value)]
        if rolls[0] == rolls[1]:  # a tie: both roll again
            return replace(state, rolls=(None, None), to_move=0), [roll_event(seat, value)]
        first = min(range(2), key=lambda s: rolls[s]) if state.low_wins else max(
            range(2), key=lambda s: rolls[s])
        return replace(state, rolls=rolls, to_move=None, placings=(first, 1 - first)), [
            roll_event(seat, value), {"type": "result", "winner": first}]

    def view_for(self, state: HighRollState, seat: int | None) -> dict[str, Any]:
        return {"game": self.name, "rolls": list(state.rolls), "to_move": state.to_move,
                "placings": list(state.placings), "low_wins": state.low_wins,
                "over": state.to_move is None}

    def placings(self, state: HighRollState) -> list[int]:
        return list(state.placings)

    def action_from_event(self, event: Event) -> tuple[int | None, Action] | None:
        return action_from_roll_event(event) if event.get("type") == "roll" else None

    def dice_by_seat(self, event: Event) -> dict[int, list[int]]:
        return dice_of_roll_event(event)


GAME = HighRoll()


class RollBot(Bot):
    kind = "standard"

    def choose(self, view, legal, rng):
        return legal[0]


register("highroll", "standard", lambda param: RollBot())

DECLARATION = Declaration(
    engine=GAME,
    slug="high-roll",
    title=gettext_noop("High Roll"),
    default_seats=2,
    quick_play_seats=2,
    standard_bot="standard",
    easy_bot=None,
    dice_shown="rolled",
    dice_fields=(DiceField("roll", "value"),),
    rules_template="toy/rules.html",
    script="toy/highroll.js",
    stylesheet="toy/highroll.css",
    icon_template="toy/icon.html",
    house_rules=(HouseRule("low_wins", gettext_noop("The lower roll wins")),),
)
