"""No Liar's Dice cup leaves the server before its round's challenge.

Every frame received by both human seats and by a spectator through whole
games is recorded, then checked against the finished game's record: a frame
may carry the receiver's own dice of the round in play, and other seats'
dice only in the reveal of a round already challenged.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.integration import tables

pytestmark = [pytest.mark.integration]

# Keys under which dice may travel, and where each is allowed.
DICE_KEYS = {"dice", "my_dice", "hands"}


def dice_paths(value, path=()):
    """Every (path, value) in a frame under a key that could carry dice."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in DICE_KEYS:
                yield path + (key,), inner
            yield from dice_paths(inner, path + (key,))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from dice_paths(inner, path + (index,))


def hands_by_round(record) -> dict[int, dict[str, list[int]]]:
    return {e["round"]: e["dice"] for e in record["events"] if e["type"] == "round"}


def leaks(frames, seat, hands) -> list[str]:
    """What in ``frames`` (received by ``seat``, None: a spectator) shows dice
    that were not the receiver's own while their round was being bid."""
    found = []
    for number, frame in enumerate(frames):
        if frame["type"] not in ("snapshot", "update") or frame["game"] is None:
            continue
        view = frame["game"]["view"]
        live = view["round"] if not (view["rolling"] or view["over"]) else None
        where = f"frame {number} (v{frame['version']}, round {view['round']})"
        for path, value in dice_paths(frame):
            if path == ("game", "view", "my_dice"):
                # An eliminated seat holds an empty cup.
                expected = hands[view["round"]].get(str(seat), []) if live and seat is not None \
                    else None
                if value != expected:
                    found.append(f"{where}: my_dice {value}, the record says {expected}")
            elif path[:2] == ("events",) + path[1:2] and path[2:] == ("dice",):
                event = frame["events"][path[1]]
                own = hands[event["round"]].get(str(seat)) if seat is not None else None
                if value != ({str(seat): own} if own is not None else {}):
                    found.append(f"{where}: a round event shows {value}")
            elif path == ("game", "view", "last_reveal", "hands"):
                revealed = frame["game"]["view"]["last_reveal"]["round"]
                if live is not None and revealed >= live:
                    found.append(f"{where}: round {revealed} revealed while it is bid")
            else:
                found.append(f"{where}: dice under {path}")
    return found


async def test_no_frame_shows_another_seats_dice_before_the_challenge(sqlite_server):
    host, guest, code = await tables.open_table(
        sqlite_server.base_url, sqlite_server.base_url, "liars_dice", 4
    )
    watcher = tables.signed_in(sqlite_server.base_url, "Dorshok")
    await watcher.connect(code)
    try:
        records = []
        for _game in range(2):
            await tables.start(host, guest, watcher)
            ends = await asyncio.gather(
                tables.play_out(host, guest),
                tables.until(watcher, lambda m: m["room"]["status"] == "finished", 120),
            )
            records.append(tables.record_of(watcher, ends[1]))

        for record in records:
            assert len(hands_by_round(record)) >= 8  # several rounds, every cup dealt
        for client, seat in ((host, 0), (guest, 1), (watcher, None)):
            frames_by_game = split_by_game(client.frames, records)
            for frames, record in zip(frames_by_game, records, strict=True):
                hands = hands_by_round(record)
                assert leaks(frames, seat, hands) == [], client.name
                own_rounds = [e for f in frames if f["type"] == "update"
                              for e in f["events"] if e["type"] == "round"]
                assert own_rounds, f"{client.name} saw the deals"
    finally:
        await tables.close_all(host, guest, watcher)


def split_by_game(frames, records):
    """The frames of each game, by the game number in them (lobby frames and
    the results screen of game 1 before the rematch go with game 1)."""
    out = [[] for _ in records]
    for frame in frames:
        game = frame.get("game") if frame["type"] in ("snapshot", "update") else None
        if game is not None:
            out[game["number"] - 1].append(frame)
    return out
