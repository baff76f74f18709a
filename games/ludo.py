"""Ludo (Luddo, লুডু), docs/rules.md §2, on the square board (2-4 players) and the
hexagonal board (5-6 players).

Rule choices, by number in docs/rules.md §2:
- 2.1 One geometry description (``ludo_geometry``) drives both boards: arm k starts
  on loop square 13k, its star is 13k+8, every start and star is safe whether or
  not its arm is seated. L = loop - 2 and home = L + 6. Seats own the default arms
  (2 players: arms 0 and 2). Option ``board`` defaults from the player count; a
  square board with 5-6 players or a hexagon with 2-4 is refused.
- 2.2 A 6 brings a base token to its start (p = 0) or moves a token 6; the exact
  count is needed for home; nothing ever blocks.
- 2.3 A token ending its move on an unsafe loop square sends every token of every
  other seat there back to base (``captured`` lists them by seat, then token).
- 2.4 The pending decision is a roll (one die) or a move. While the rolls are 6s
  the same seat rolls again; three 6s void the sequence and end the turn. Then the
  rolls are used in the order rolled, one token per roll. A roll no token can use
  ends the turn at once, voiding the later rolls and any bonus. A sequence with a
  capture, or with a token brought home while ``home_bonus_roll`` is on, earns
  exactly one new sequence (with its own 6s, three-6s count and bonus).
- 2.4.6 / 2.5 A seat whose fourth token arrives home is finished at once (rest of
  the sequence and bonus void); the others play on for places until one is left.

``Turn.forced`` is set when only one token can move, or all movable tokens share
one progress value (then the lowest-numbered): the table applies it at once.

Tokens are numbered 0..3 in actions and record events; messages for players say
``token + 1`` (tokens 1 to 4), as the board shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
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
from .ludo_geometry import (
    BASE,
    DEFAULT_ARMS,
    GEOMETRIES,
    TOKENS,
    board_for_players,
    geometry_json,
)

ROLL, MOVE = "roll", "move"
SIX = 6
SIXES_VOID = 3


@dataclass(frozen=True)
class LudoState:
    board: str
    arms: tuple[int, ...]
    tokens: tuple[tuple[int, ...], ...]  # progress per seat, per token
    to_move: int | None  # None once the game is over
    pending: str  # ROLL or MOVE: what the seat to move does next (nothing once over)
    rolls: tuple[int, ...] = ()  # the current sequence, in the order rolled
    used: int = 0  # how many rolls of the sequence have moved a token
    movable: tuple[int, ...] = ()  # legal tokens for rolls[used] while pending MOVE
    bonus: bool = False  # the current sequence has earned a new one
    sequence: int = 1  # 1 for a turn's first sequence, 2+ for bonus sequences
    home_bonus_roll: bool = True
    placings: tuple[int, ...] = ()
    # (seat, token, from, to, ((seat, token), ...)) of the last move, for animation
    last_move: tuple | None = None

    @property
    def num_players(self) -> int:
        return len(self.tokens)

    @property
    def over(self) -> bool:
        """Every seat is placed: all but one brought their tokens home (docs/rules.md §2.5)."""
        return len(self.placings) == len(self.tokens)


def _with(state: LudoState, **changes: Any) -> LudoState:
    """``dataclasses.replace`` without its per-call field checks: the engine makes
    a new state on every action, and this is several times faster."""
    new = object.__new__(LudoState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def _parse_board(value: Any) -> str | None:
    if value is None or value in GEOMETRIES:
        return value
    raise InvalidOptions("Option board must be 'square' or 'hex', not {value}", value=repr(value))


class Ludo(Game[LudoState]):
    name = "ludo"
    title = "Ludo"
    min_players = 2
    max_players = 6
    options = (
        Option(
            "board", None, help="'square' (2-4 players) or 'hex' (5-6 players); "
            "the default follows the number of players.", parse=_parse_board,
        ),
        Option("home_bonus_roll", True, help="A token brought home earns a new roll sequence."),
        Option("first_player", 0, help="The seat that rolls first."),
    )
    record_event_types = ("roll", "move")
    views_alike = True  # nothing in Ludo is hidden
    record_event_fields = {
        "roll": ("type", "seat", "value"),
        "move": ("type", "seat", "token", "from", "to", "captured"),
    }

    # ---- options and setup -------------------------------------------------

    def check_options(self, num_players: int, options: dict[str, Any]) -> dict[str, Any]:
        wanted = board_for_players(num_players)
        board = options["board"]
        if board is None:
            board = wanted
        elif board != wanted:
            if board == "square":
                raise InvalidOptions(
                    "The square board is for 2 to 4 players; {count} players play on"
                    " the hexagonal board ('hex')", count=num_players,
                )
            raise InvalidOptions(
                "The hexagonal board is for 5 or 6 players; {count} players play on"
                " the square board ('square')", count=num_players,
            )
        return {
            "board": board,
            "home_bonus_roll": options["home_bonus_roll"],
            "first_player": options["first_player"],
        }

    def initial_state(
        self, num_players: int, options: dict[str, Any] | None = None
    ) -> LudoState:
        self.check_players(num_players)
        options = self.resolve_options(num_players, options)
        return LudoState(
            board=options["board"],
            arms=DEFAULT_ARMS[num_players],
            tokens=((BASE,) * TOKENS,) * num_players,
            to_move=options["first_player"],
            pending=ROLL,
            home_bonus_roll=options["home_bonus_roll"],
        )

    # ---- decisions ---------------------------------------------------------

    def turn(self, state: LudoState) -> Turn | None:
        if state.over:
            return None
        if state.pending == ROLL:
            return Turn(seat=state.to_move, dice=1)
        movable = state.movable
        if len(movable) == 1:
            return Turn(seat=state.to_move, forced={"type": "move", "token": movable[0]})
        mine = state.tokens[state.to_move]
        first = mine[movable[0]]
        for t in movable:
            if mine[t] != first:
                return Turn(seat=state.to_move)
        return Turn(seat=state.to_move, forced={"type": "move", "token": movable[0]})

    def legal_actions(self, state: LudoState, seat: int) -> list[Action]:
        if seat != state.to_move or state.over:
            return []
        if state.pending == ROLL:
            return [{"type": "roll"}]
        if state.pending == MOVE:
            return [{"type": "move", "token": t} for t in state.movable]
        return []

    def apply(self, state: LudoState, seat: int | None, action: Action) -> Applied[LudoState]:
        if state.over:
            raise IllegalAction("The game is over")
        if seat != state.to_move:
            raise NotYourTurn("It is not your turn", seat=state.to_move)
        kind = action.get("type") if isinstance(action, dict) else None
        if kind == "roll":
            if state.pending != ROLL:
                raise IllegalAction(
                    "Move a token first: your roll of {roll} is waiting",
                    roll=state.rolls[state.used],
                )
            (value,) = require_dice(action, 1)
            return self._roll(state, seat, value)
        if kind == "move":
            if state.pending != MOVE:
                raise IllegalAction("You must roll first")
            token = action.get("token")
            if not isinstance(token, int) or isinstance(token, bool):
                raise IllegalAction("Say which token to move: a number from 1 to 4")
            if not 0 <= token < TOKENS:
                raise IllegalAction("There is no token {token}", token=token + 1)
            if token not in state.movable:
                raise self._why_not(state, seat, token)
            return self._move(state, seat, token)
        raise IllegalAction("In Ludo you roll the die or move a token")

    def _why_not(self, state: LudoState, seat: int, token: int) -> IllegalAction:
        geo = GEOMETRIES[state.board]
        p = state.tokens[seat][token]
        roll = state.rolls[state.used]
        if p == BASE:
            return IllegalAction("Token {token} is in base: only a 6 brings it out",
                                 token=token + 1)
        if p == geo.home:
            return IllegalAction("Token {token} is already home", token=token + 1)
        return IllegalAction("Token {token} needs exactly {need} to reach home, not {roll}",
                             token=token + 1, need=geo.home - p, roll=roll)

    # ---- the rules ---------------------------------------------------------

    @staticmethod
    def _movable(tokens: tuple[int, ...], roll: int, home: int) -> tuple[int, ...]:
        if roll == SIX:
            return tuple(t for t in range(TOKENS) if tokens[t] == BASE or tokens[t] + SIX <= home)
        return tuple(t for t in range(TOKENS) if tokens[t] != BASE and tokens[t] + roll <= home)

    def _roll(self, state: LudoState, seat: int, value: int) -> Applied[LudoState]:
        events = [roll_event(seat, value)]
        rolls = state.rolls + (value,)
        if value == SIX:
            if len(rolls) == SIXES_VOID:
                return self._end_turn(state, state.tokens, state.placings), events
            return _with(state, rolls=rolls), events
        home = GEOMETRIES[state.board].home
        movable = self._movable(state.tokens[seat], rolls[0], home)
        if not movable:
            return self._end_turn(state, state.tokens, state.placings), events
        return _with(state, pending=MOVE, rolls=rolls, used=0, movable=movable), events

    def _move(self, state: LudoState, seat: int, token: int) -> Applied[LudoState]:
        geo = GEOMETRIES[state.board]
        tables = geo.tables
        roll = state.rolls[state.used]
        mine = state.tokens[seat]
        start = mine[token]
        end = 0 if start == BASE else start + roll
        tokens = list(state.tokens)
        tokens[seat] = mine[:token] + (end,) + mine[token + 1 :]
        captured: list[dict[str, int]] = []
        if 0 < end <= geo.last:
            square = tables.square[state.arms[seat]][end + 1]
            if tables.unsafe[square]:
                for other, arm in enumerate(state.arms):
                    if other == seat:
                        continue
                    there = tables.progress[arm][square]
                    theirs = tokens[other]
                    if there >= 0 and there in theirs:
                        tokens[other] = tuple(BASE if q == there else q for q in theirs)
                        captured.extend(
                            {"seat": other, "token": t} for t in range(TOKENS) if theirs[t] == there
                        )
        tokens_t = tuple(tokens)
        events = [{
            "type": "move", "seat": seat, "token": token, "from": start, "to": end,
            "captured": captured,
        }]
        last_move = (seat, token, start, end, tuple((c["seat"], c["token"]) for c in captured))
        state = _with(state, last_move=last_move)

        if end == geo.home and all(p == geo.home for p in tokens_t[seat]):
            return self._end_turn(state, tokens_t, state.placings + (seat,)), events
        bonus = state.bonus or bool(captured) or (end == geo.home and state.home_bonus_roll)
        used = state.used + 1
        if used == len(state.rolls):
            if bonus:
                return _with(
                    state, tokens=tokens_t, pending=ROLL, rolls=(), used=0, movable=(),
                    bonus=False, sequence=state.sequence + 1,
                ), events
            return self._end_turn(state, tokens_t, state.placings), events
        movable = self._movable(tokens_t[seat], state.rolls[used], geo.home)
        if not movable:
            return self._end_turn(state, tokens_t, state.placings), events
        return _with(
            state, tokens=tokens_t, used=used, movable=movable, bonus=bonus
        ), events

    def _end_turn(self, state: LudoState, tokens, placings: tuple[int, ...]) -> LudoState:
        n = len(tokens)
        unfinished = [s for s in range(n) if s not in placings]
        if len(unfinished) == 1:  # the last one left takes last place: the game is over
            return _with(
                state, tokens=tokens, to_move=None, pending=ROLL, rolls=(), used=0, movable=(),
                bonus=False, sequence=1, placings=placings + (unfinished[0],),
            )
        return _with(
            state, tokens=tokens, to_move=next_seat(state.to_move, n, placings), pending=ROLL,
            rolls=(), used=0, movable=(), bonus=False, sequence=1, placings=placings,
        )

    # ---- what players see --------------------------------------------------

    def view_for(self, state: LudoState, seat: int | None) -> dict[str, Any]:
        # Nothing in Ludo is hidden: every seat sees the same.
        tables = GEOMETRIES[state.board].tables
        seats = []
        for s, (arm, tokens) in enumerate(zip(state.arms, state.tokens, strict=True)):
            squares = tables.square[arm]
            seats.append({
                "seat": s,
                "arm": arm,
                "colour": arm,
                "tokens": list(tokens),
                "squares": [None if (sq := squares[p + 1]) < 0 else sq for p in tokens],
                "finished": s in state.placings,
            })
        last = state.last_move
        return {
            "game": self.name,
            "board": state.board,
            "geometry": geometry_json(state.board),
            "seats": seats,
            "to_move": state.to_move,
            "pending": None if state.over else state.pending,
            "rolls": list(state.rolls),
            "used": state.used,
            # Index in ``rolls`` of the roll to move with now (None while rolling).
            "current": state.used if state.pending == MOVE else None,
            "movable": list(state.movable),
            "bonus": state.bonus,
            "sequence": state.sequence,
            "home_bonus_roll": state.home_bonus_roll,
            "placings": list(state.placings),
            "last_move": None if last is None else {
                "seat": last[0], "token": last[1], "from": last[2], "to": last[3],
                "captured": [{"seat": s, "token": t} for s, t in last[4]],
            },
            "over": state.over,
        }

    def placings(self, state: LudoState) -> list[int]:
        return list(state.placings)

    # ---- the record --------------------------------------------------------

    def action_from_event(self, event: Event) -> tuple[int | None, Action] | None:
        kind = event.get("type")
        if kind == "roll":
            return action_from_roll_event(event)
        if kind == "move":
            return event.get("seat"), {"type": "move", "token": event.get("token")}
        return None

    def dice_by_seat(self, event: Event) -> dict[int, list[int]]:
        return dice_of_roll_event(event)

    def record_seat_extra(self, state: LudoState, seat: int) -> dict[str, Any]:
        return {"arm": state.arms[seat]}


GAME = Ludo()

# What the site knows about Ludo (games/registry.py lists it).
DECLARATION = Declaration(
    engine=GAME,
    slug="ludo",
    title=gettext_noop("Ludo"),
    default_seats=4,
    quick_play_seats=4,
    standard_bot="standard",
    easy_bot="smart",
    dice_shown="rolled",
    dice_fields=(DiceField("roll", "value"),),
    rules_template="rules/ludo.html",
    script="js/ludo.js",
    # `search` wins as often as `standard` against `priority` in fair-dice
    # tournaments (docs/bots.md), so it is rated as `standard` and not offered to
    # hosts as a stronger level: no `expert_bot` until one measures stronger.
    bot_ratings={"random": 11.7, "smart": 26.6, "standard": 36.3, "search": 36.3},
    icon_template="rooms/icons/ludo.html",
    house_rules=(
        HouseRule("home_bonus_roll", gettext_noop("Bringing a token home earns another roll")),
    ),
    seats_hint=(5, gettext_noop("Ludo with 5 or 6 players is played on the hexagonal board.")),
    replay_pace_ms=450,
)
