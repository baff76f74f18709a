"""The Ludo boards as data (docs/rules.md §2.1): one description drives both boards.

A board is a number of arms and a loop length; everything else follows from the
two numbers, so the rules never ask "is this the hexagon?". ``Geometry`` also
keeps the lookup tables the engine and the bots use on every move (absolute square
of a progress value, progress of an absolute square, safe squares), computed once.
``geometry_json`` is what the UI draws from.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

ARM_LENGTH = 13  # loop squares between two arms' start squares
STAR_OFFSET = 8  # an arm's star square is 8 squares past its start
HOME_COLUMN = 5  # squares in a seat's own home column, between the loop and home
BASE = -1  # progress of a token in base
TOKENS = 4

BOARDS = {"square": 4, "hex": 6}  # board name -> number of arms

# docs/rules.md §2.1: which arms the seats own, by number of players.
DEFAULT_ARMS = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3), 5: (0, 1, 2, 3, 4), 6: tuple(range(6))}


@dataclass(frozen=True)
class Geometry:
    """A board: ``arms`` arms of 13 loop squares each. The derived numbers are
    plain fields (filled in by ``make``) because the engine reads them on every move."""

    name: str
    arms: int
    loop: int  # loop squares
    last: int  # L: the last progress value on the loop (loop - 2)
    home: int  # progress of a token that is home (L + 6)

    @classmethod
    def make(cls, name: str, arms: int) -> Geometry:
        loop = ARM_LENGTH * arms
        return cls(name, arms, loop, loop - 2, loop - 2 + HOME_COLUMN + 1)

    def start(self, arm: int) -> int:
        return ARM_LENGTH * arm

    def star(self, arm: int) -> int:
        return ARM_LENGTH * arm + STAR_OFFSET

    @property
    def safe(self) -> frozenset[int]:
        return self.tables.safe

    def square_of(self, arm: int, progress: int) -> int | None:
        """The absolute loop square of a token, or None off the loop (base, home
        column, home)."""
        if 0 <= progress <= self.last:
            return (self.start(arm) + progress) % self.loop
        return None

    @property
    def tables(self) -> Tables:
        return TABLES[self.name]


@dataclass(frozen=True)
class Tables:
    """Precomputed lookups. ``square[arm][p]`` is the loop square for 0 <= p <= L
    (-1 elsewhere, indexable by p = -1..home via ``p + 1``); ``progress[arm][sq]``
    is the progress an arm's token has on loop square ``sq`` (-1 if that arm's
    path does not cross it); ``unsafe[sq]`` is True where captures happen."""

    safe: frozenset[int]
    square: tuple[tuple[int, ...], ...]
    progress: tuple[tuple[int, ...], ...]
    unsafe: tuple[bool, ...]


def _tables(geo: Geometry) -> Tables:
    safe = frozenset(
        sq for arm in range(geo.arms) for sq in (geo.start(arm), geo.star(arm))
    )
    square = tuple(
        tuple(
            -1 if geo.square_of(arm, p) is None else geo.square_of(arm, p)
            for p in range(BASE, geo.home + 1)
        )
        for arm in range(geo.arms)
    )
    progress = tuple(
        tuple(
            p if (p := (sq - geo.start(arm)) % geo.loop) <= geo.last else -1
            for sq in range(geo.loop)
        )
        for arm in range(geo.arms)
    )
    unsafe = tuple(sq not in safe for sq in range(geo.loop))
    return Tables(safe=safe, square=square, progress=progress, unsafe=unsafe)


GEOMETRIES = {name: Geometry.make(name, arms) for name, arms in BOARDS.items()}
TABLES = {name: _tables(geo) for name, geo in GEOMETRIES.items()}


def board_for_players(num_players: int) -> str:
    return "square" if num_players <= 4 else "hex"


@cache
def _geometry_json(board: str) -> dict[str, Any]:
    geo = GEOMETRIES[board]
    return {
        "board": board,
        "arms": geo.arms,
        "loop": geo.loop,
        "arm_length": ARM_LENGTH,
        "last_loop_progress": geo.last,
        "home_column": HOME_COLUMN,
        "home": geo.home,
        "starts": [geo.start(a) for a in range(geo.arms)],
        "stars": [geo.star(a) for a in range(geo.arms)],
        "safe": sorted(geo.safe),
        # The loop square from which each arm's tokens turn into their home column.
        "home_entries": [geo.square_of(a, geo.last) for a in range(geo.arms)],
    }


def geometry_json(board: str, num_players: int | None = None) -> dict[str, Any]:
    """JSON-ready description of a board for drawing it. With ``num_players``,
    also which arm each seat owns (docs/rules.md §2.1 defaults)."""
    if board not in GEOMETRIES:
        raise KeyError(f"Unknown Ludo board {board!r}")
    data = dict(_geometry_json(board))
    for key in ("starts", "stars", "safe", "home_entries"):
        data[key] = list(data[key])
    if num_players is not None:
        data["seat_arms"] = list(DEFAULT_ARMS[num_players])
    return data
