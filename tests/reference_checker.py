"""An independent checker of game records, written from docs/rules.md and
docs/record.md alone.

It shares no code with ``games/`` (not even the dice function): it is a second,
deliberately plain reading of the spec, so a record our engines write is checked
the way an outside tool would check it. ``check(record)`` returns None when the
record is valid, else a message naming the event.
"""

from __future__ import annotations

import hashlib
import hmac


class Invalid(Exception):
    pass


def _die(server_seed: bytes, client_seed: str, nonce: int) -> int:
    counter = 0
    while True:
        digest = hmac.new(
            server_seed, f"{client_seed}:{nonce}:{counter}".encode(), hashlib.sha256
        ).digest()
        for byte in digest:
            if byte < 252:
                return byte % 6 + 1
        counter += 1


class _Stream:
    """The record's events in order, with the dice checked as they are read."""

    def __init__(self, record, known):
        self.events = [(i, e) for i, e in enumerate(record["events"]) if e["type"] in known]
        self.pos = 0
        fairness = record["fairness"]
        self.seed = bytes.fromhex(fairness["server_seed"])
        if hashlib.sha256(self.seed).hexdigest() != fairness["server_seed_hash"]:
            raise Invalid("server seed does not match its hash")
        self.client = fairness["client_seed"]
        self.nonce = 0

    def done(self):
        return self.pos >= len(self.events)

    def peek(self):
        return None if self.done() else self.events[self.pos][1]

    def take(self, kind):
        if self.done():
            raise Invalid(f"record ends where a {kind} event is due")
        index, event = self.events[self.pos]
        if event["type"] != kind:
            raise Invalid(f"event {index}: expected {kind}, found {event['type']}")
        self.pos += 1
        self.index = index
        return event

    def die(self, value):
        expected = _die(self.seed, self.client, self.nonce)
        if value != expected:
            raise Invalid(f"event {self.index}: die {value} but the seeds give {expected}")
        self.nonce += 1

    def fail(self, message):
        raise Invalid(f"event {self.index}: {message}")


def _next_seat(seat, n, out):
    for step in range(1, n + 1):
        s = (seat + step) % n
        if s not in out:
            return s
    raise Invalid("no seat left")


# ---- Snakes & Ladders (docs/rules.md §3) --------------------------------------------


def _snakes(record, stream):
    n = len(record["seats"])
    board = record["options"]["board"]
    jumps = {int(k): v for k, v in board["ladders"].items()}
    jumps.update({int(k): v for k, v in board["snakes"].items()})
    squares = [0] * n
    placed = []
    seat = record["options"]["first_player"]
    while len(placed) < n - 1:
        roll = stream.take("roll")
        if roll["seat"] != seat:
            stream.fail(f"seat {roll['seat']} rolled in seat {seat}'s turn")
        stream.die(roll["value"])
        value, here = roll["value"], squares[seat]
        target = (6 if value == 6 else None) if here == 0 else (
            here + value if here + value <= 100 else None)
        if target is not None:
            there = jumps.get(target, target)
            if there != here:
                move = stream.take("move")
                if (move["seat"], move["from"], move["to"]) != (seat, here, there):
                    stream.fail(f"move should be seat {seat} {here}->{there}")
                squares[seat] = there
        if squares[seat] == 100:
            placed.append(seat)
            if len(placed) == n - 1:
                placed.append(next(s for s in range(n) if s not in placed))
                break
            seat = _next_seat(seat, n, placed)
        elif value != 6:
            seat = _next_seat(seat, n, placed)
    return placed


# ---- Liar's Dice (docs/rules.md §1) -------------------------------------------------

_RANK = {2: 0, 3: 1, 4: 2, 5: 3, 6: 4, 1: 5}


def _liars(record, stream):
    n = len(record["seats"])
    counts = [record["options"]["dice_per_player"]] * n
    starter = record["options"]["first_player"]
    out: list[int] = []
    number = 0
    while len(out) < n - 1:
        number += 1
        deal = stream.take("round")
        if deal["round"] != number or deal["starter"] != starter:
            stream.fail(f"round {number} should be opened by seat {starter}")
        alive = [s for s in range(n) if counts[s]]
        if sorted(int(k) for k in deal["dice"]) != alive:
            stream.fail("every surviving seat, and only they, roll")
        hands = {}
        for s in alive:
            hand = deal["dice"][str(s)]
            if len(hand) != counts[s]:
                stream.fail(f"seat {s} should roll {counts[s]} dice")
            for value in hand:
                stream.die(value)
            hands[s] = hand
        total = sum(counts)
        bid, bidder, wild, turn = None, None, True, starter
        while True:
            event = stream.peek()
            kind = event["type"] if event else None
            if kind == "bid":
                event = stream.take("bid")
                q, f = event["quantity"], event["face"]
                if event["seat"] != turn:
                    stream.fail("bid out of turn")
                if not (1 <= q <= total and 1 <= f <= 6):
                    stream.fail("bid out of range")
                if bid and not (q > bid[0] or (q == bid[0] and _RANK[f] > _RANK[bid[1]])):
                    stream.fail("bid does not beat the current bid")
                if f == 1:
                    wild = False
                bid, bidder, turn = (q, f), turn, _next_seat(turn, n, out)
            elif kind == "challenge":
                event = stream.take("challenge")
                if event["seat"] != turn or bid is None:
                    stream.fail("challenge out of turn or with nothing to challenge")
                q, f = bid
                dice = [d for h in hands.values() for d in h]
                count = dice.count(f) + (dice.count(1) if f != 1 and wild else 0)
                loser = turn if count >= q else bidder
                if (event["count"], event["loser"]) != (count, loser):
                    stream.fail(f"count {count}, loser {loser}")
                counts[loser] -= 1
                if counts[loser] == 0:
                    out.append(loser)
                starter = loser if counts[loser] else _next_seat(loser, n, out)
                break
            else:
                stream.fail("a round ends only with a challenge")
    winner = next(s for s in range(n) if counts[s])
    return [winner] + out[::-1]


# ---- Ludo (docs/rules.md §2) --------------------------------------------------------

_DEFAULT_ARMS = {2: [0, 2], 3: [0, 1, 2], 4: [0, 1, 2, 3], 5: [0, 1, 2, 3, 4],
                 6: [0, 1, 2, 3, 4, 5]}


def _ludo(record, stream):
    n = len(record["seats"])
    options = record["options"]
    loop = 52 if options["board"] == "square" else 78
    arms_count = 4 if options["board"] == "square" else 6
    last_loop, home = loop - 2, loop + 4
    arms = [record["seats"][s]["arm"] for s in range(n)]
    if arms != _DEFAULT_ARMS[n]:
        raise Invalid(f"arms {arms} are not the default ones")
    safe = {13 * k for k in range(arms_count)} | {13 * k + 8 for k in range(arms_count)}
    tokens = [[-1] * 4 for _ in range(n)]
    placed: list[int] = []
    seat = options["first_player"]

    def square(s, p):
        return (13 * arms[s] + p) % loop

    def can_move(s, t, r):
        p = tokens[s][t]
        return r == 6 if p == -1 else p + r <= home

    while len(placed) < n - 1:
        bonus = True
        while bonus and seat not in placed:
            bonus = False
            rolls = []
            while True:
                roll = stream.take("roll")
                if roll["seat"] != seat:
                    stream.fail(f"seat {roll['seat']} rolled in seat {seat}'s turn")
                stream.die(roll["value"])
                rolls.append(roll["value"])
                if roll["value"] != 6 or len(rolls) == 3:
                    break
            if rolls == [6, 6, 6]:
                break  # void sequence, turn over
            earned = False
            finished_now = False
            for r in rolls:
                movable = [t for t in range(4) if can_move(seat, t, r)]
                if not movable:
                    earned = False  # the turn ends at once: no bonus
                    break
                move = stream.take("move")
                t = move["token"]
                if move["seat"] != seat or t not in movable:
                    stream.fail(f"token {t} cannot move {r}")
                p = tokens[seat][t]
                to = 0 if p == -1 else p + r
                if (move["from"], move["to"]) != (p, to):
                    stream.fail(f"token {t} goes {p}->{to}")
                captured = set()
                if to <= last_loop and square(seat, to) not in safe:
                    for other in range(n):
                        if other != seat:
                            for u in range(4):
                                q = tokens[other][u]
                                if 0 <= q <= last_loop and square(other, q) == square(seat, to):
                                    captured.add((other, u))
                got = {(c["seat"], c["token"]) for c in move["captured"]}
                if got != captured or len(got) != len(move["captured"]):
                    stream.fail(f"captures should be {sorted(captured)}")
                for other, u in captured:
                    tokens[other][u] = -1
                tokens[seat][t] = to
                if captured or (to == home and options["home_bonus_roll"]):
                    earned = True
                if all(p == home for p in tokens[seat]):
                    placed.append(seat)
                    finished_now = True
                    break
            else:
                bonus = earned
            if finished_now:
                break
        if len(placed) >= n - 1:
            break
        seat = _next_seat(seat, n, placed)
    placed.append(next(s for s in range(n) if s not in placed))
    return placed


_GAMES = {
    "snakes": (_snakes, {"roll", "move"}),
    "liars_dice": (_liars, {"round", "bid", "challenge"}),
    "ludo": (_ludo, {"roll", "move"}),
}


def check(record) -> str | None:
    """None if ``record`` is a valid finished game, else the reason."""
    try:
        if record.get("format") != "khelaghor.record/1":
            raise Invalid("format")
        if record["fairness"].get("scheme") != "hmac-sha256-dice/1":
            raise Invalid("scheme")
        play, known = _GAMES[record["game"]]
        stream = _Stream(record, known)
        placings = play(record, stream)
        if not stream.done():
            raise Invalid(f"events after the end: {stream.peek()}")
        if record["status"] != "finished" or record["placings"] != placings:
            raise Invalid(f"placings should be {placings}")
    except Invalid as exc:
        return str(exc)
    except (KeyError, TypeError, ValueError) as exc:
        return f"malformed record: {exc!r}"
    return None
